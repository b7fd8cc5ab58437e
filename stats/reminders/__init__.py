"""Study reminders: the due-reminder run and its mail."""
