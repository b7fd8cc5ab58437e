"""The demo catalog: skills across every category, with descriptions and tags."""

from __future__ import annotations

from datetime import datetime

from .models import Skill

# (skill_id, name, category, description, tags)
DEMO_SKILLS: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    # Programming
    (
        "python",
        "Python",
        "Programming",
        "General-purpose language for web, data and scripting.",
        ("language", "dynamic", "backend"),
    ),
    (
        "javascript",
        "JavaScript",
        "Programming",
        "The language of the browser, and of Node.js.",
        ("language", "dynamic", "web"),
    ),
    (
        "typescript",
        "TypeScript",
        "Programming",
        "JavaScript with a static type system.",
        ("language", "typed", "web"),
    ),
    (
        "go",
        "Go",
        "Programming",
        "Compiled language built for simple, concurrent services.",
        ("language", "compiled", "concurrency"),
    ),
    (
        "rust",
        "Rust",
        "Programming",
        "Memory-safe systems language without a garbage collector.",
        ("language", "compiled", "systems"),
    ),
    (
        "java",
        "Java",
        "Programming",
        "Typed JVM language behind a great many enterprise systems.",
        ("language", "jvm", "typed"),
    ),
    (
        "csharp",
        "C#",
        "Programming",
        "Microsoft's typed language for .NET applications.",
        ("language", "dotnet", "typed"),
    ),
    # Cloud
    (
        "aws-lambda",
        "AWS Lambda",
        "Cloud",
        "Run code on events without managing servers.",
        ("aws", "serverless"),
    ),
    (
        "aws-dynamodb",
        "Amazon DynamoDB",
        "Cloud",
        "Serverless key-value and document database.",
        ("aws", "nosql", "serverless"),
    ),
    (
        "aws-s3",
        "Amazon S3",
        "Cloud",
        "Object storage with eleven nines of durability.",
        ("aws", "storage"),
    ),
    (
        "azure",
        "Microsoft Azure",
        "Cloud",
        "Microsoft's public cloud platform.",
        ("azure", "platform"),
    ),
    ("gcp", "Google Cloud", "Cloud", "Google's public cloud platform.", ("gcp", "platform")),
    # DevOps
    (
        "docker",
        "Docker",
        "DevOps",
        "Package applications and their dependencies as containers.",
        ("containers",),
    ),
    (
        "kubernetes",
        "Kubernetes",
        "DevOps",
        "Orchestrate containers across a cluster.",
        ("containers", "orchestration"),
    ),
    (
        "terraform",
        "Terraform",
        "DevOps",
        "Declare infrastructure as code and apply it.",
        ("iac", "automation"),
    ),
    (
        "github-actions",
        "GitHub Actions",
        "DevOps",
        "Continuous integration in the repository.",
        ("ci", "automation"),
    ),
    (
        "ansible",
        "Ansible",
        "DevOps",
        "Agentless configuration management over SSH.",
        ("automation", "configuration"),
    ),
    # Database
    (
        "postgresql",
        "PostgreSQL",
        "Database",
        "The advanced open-source relational database.",
        ("sql", "relational"),
    ),
    (
        "mysql",
        "MySQL",
        "Database",
        "Popular open-source relational database.",
        ("sql", "relational"),
    ),
    (
        "mongodb",
        "MongoDB",
        "Database",
        "Document database storing JSON-like records.",
        ("nosql", "documents"),
    ),
    (
        "redis",
        "Redis",
        "Database",
        "In-memory data structure store, cache and broker.",
        ("nosql", "cache"),
    ),
    (
        "data-modeling",
        "Data Modeling",
        "Database",
        "Shape data around its access patterns.",
        ("design",),
    ),
    # Frontend
    (
        "react",
        "React",
        "Frontend",
        "Component library for building user interfaces.",
        ("javascript", "ui"),
    ),
    (
        "vue",
        "Vue.js",
        "Frontend",
        "Progressive framework for user interfaces.",
        ("javascript", "ui"),
    ),
    (
        "css",
        "CSS",
        "Frontend",
        "Layout and style for the web: grid, flexbox, custom properties.",
        ("web", "design"),
    ),
    (
        "accessibility",
        "Web Accessibility",
        "Frontend",
        "Build pages everyone can use (WCAG).",
        ("web", "a11y"),
    ),
    # Backend
    (
        "django",
        "Django",
        "Backend",
        "Python web framework with batteries included.",
        ("python", "web", "framework"),
    ),
    (
        "fastapi",
        "FastAPI",
        "Backend",
        "Async Python APIs driven by type hints.",
        ("python", "api", "async"),
    ),
    (
        "nodejs",
        "Node.js",
        "Backend",
        "JavaScript runtime for servers and tools.",
        ("javascript", "runtime"),
    ),
    (
        "spring-boot",
        "Spring Boot",
        "Backend",
        "Opinionated Java framework for services.",
        ("java", "framework"),
    ),
    (
        "graphql",
        "GraphQL",
        "Backend",
        "Query language for APIs with a typed schema.",
        ("api", "schema"),
    ),
    # Mobile
    ("swift", "Swift", "Mobile", "Apple's language for iOS and macOS apps.", ("ios", "language")),
    (
        "kotlin",
        "Kotlin",
        "Mobile",
        "Concise JVM language, first choice on Android.",
        ("android", "language"),
    ),
    (
        "flutter",
        "Flutter",
        "Mobile",
        "One Dart codebase for iOS, Android and the web.",
        ("cross-platform", "dart"),
    ),
    (
        "react-native",
        "React Native",
        "Mobile",
        "Native mobile apps written with React.",
        ("cross-platform", "javascript"),
    ),
    # Data
    ("pandas", "pandas", "Data", "Data frames for analysis in Python.", ("python", "analysis")),
    (
        "sql-analytics",
        "SQL Analytics",
        "Data",
        "Window functions, CTEs and reporting queries.",
        ("sql", "analysis"),
    ),
    (
        "machine-learning",
        "Machine Learning",
        "Data",
        "Models that learn from data.",
        ("ml", "statistics"),
    ),
    (
        "apache-spark",
        "Apache Spark",
        "Data",
        "Distributed processing of large data sets.",
        ("big-data", "distributed"),
    ),
    (
        "data-visualization",
        "Data Visualization",
        "Data",
        "Charts that tell the truth clearly.",
        ("analysis", "design"),
    ),
    # Security
    (
        "owasp",
        "OWASP Top 10",
        "Security",
        "The most critical web application security risks.",
        ("web", "appsec"),
    ),
    (
        "iam",
        "Identity and Access Management",
        "Security",
        "Least privilege, roles, policies.",
        ("access", "cloud"),
    ),
    (
        "cryptography",
        "Applied Cryptography",
        "Security",
        "Hashing, signing and encryption done right.",
        ("crypto",),
    ),
    (
        "threat-modeling",
        "Threat Modeling",
        "Security",
        "Find what can go wrong before it does.",
        ("design", "appsec"),
    ),
    # Other
    ("git", "Git", "Other", "Distributed version control.", ("tools", "collaboration")),
    (
        "agile",
        "Agile Delivery",
        "Other",
        "Ship in small increments and learn from each one.",
        ("process",),
    ),
    (
        "technical-writing",
        "Technical Writing",
        "Other",
        "Documentation people actually read.",
        ("communication",),
    ),
    (
        "system-design",
        "System Design",
        "Other",
        "Trade-offs of large distributed systems.",
        ("architecture", "design"),
    ),
)


def demo_skills(created_at: datetime) -> list[Skill]:
    """Return the demo catalog as unsaved skills, all created at one instant."""
    return [
        Skill(
            skill_id,
            name=name,
            category=category,
            description=description,
            tags=set(tags),
            created_at=created_at,
        )
        for skill_id, name, category, description, tags in DEMO_SKILLS
    ]
