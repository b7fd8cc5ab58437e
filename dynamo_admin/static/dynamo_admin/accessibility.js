"use strict";
// Where Django's admin widgets leave a control without an accessible name or with ARIA that
// ARIA forbids (axe-core, WCAG 2.1 AA). Loaded deferred, so each listener here is registered
// after the widget's own that builds the markup it mends.
{
    // select2 (autocomplete_fields) names its combobox and read-only textbox by the choice
    // alone: an empty choice (an inline's blank row) leaves both nameless. They take the
    // select's label.
    const nameAutocompletes = (root) => {
        for (const select of root.querySelectorAll("select.admin-autocomplete")) {
            const label = select.labels[0]?.textContent.trim().replace(/:$/, "");
            const drawn = select.nextElementSibling?.querySelectorAll(
                ".select2-selection[role=combobox], .select2-selection__rendered[role=textbox]"
            );
            for (const element of (label && drawn) || []) {
                element.setAttribute("aria-label", label);
            }
        }
    };
    // autocomplete.js draws them when jQuery is ready, and in each new inline row.
    if (window.django?.jQuery) {
        window.django.jQuery(() => nameAutocompletes(document));
        document.addEventListener("formset:added", (event) => nameAutocompletes(event.target));
    }

    // SelectFilter2 (filter_horizontal) puts an aria-label on a bare <span> search icon, which
    // ARIA allows only with a role: it is an image. SelectFilter2 draws it on the page's load.
    window.addEventListener("load", () => {
        for (const icon of document.querySelectorAll("span.search-label-icon[aria-label]")) {
            icon.setAttribute("role", "img");
        }
    });
}
