  // Constants: size limits, node kinds, the tag and role tables, input types and formats.

  // ---------------------------------------------------------------------------------------
  // Constants

  const NAME_MAX = 100;
  const VALUE_MAX = 200;
  // Stop collecting descendant text early: a link that wraps a whole card must stay cheap.
  const NAME_BUDGET = 400;
  const DEFAULT_MAX_CHARS = 60000;
  const DEFAULT_SCROLL = 500;

  const ELEMENT_NODE = 1;
  const TEXT_NODE = 3;

  const VISIBLE = 0; // rendered
  const SELF_HIDDEN = 1; // visibility:hidden: descendants may still be visible
  const SUBTREE_HIDDEN = 2; // display:none or not rendered at all
  const VISIBILITY_OPTIONS = { visibilityProperty: true, checkVisibilityCSS: true };

  // Elements whose content is never rendered as part of the page.
  const SKIP_TAGS = new Set([
    'script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base',
    'datalist', 'param', 'source', 'track',
  ]);

  // Block-level elements: their text never runs into the text around them.
  const BLOCK_TAGS = new Set([
    'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog',
    'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3',
    'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section',
    'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'legend',
  ]);

  // Tags that can be listed in interactive mode even without attributes.
  const INTERACTIVE_MODE_TAGS = new Set([
    'a', 'area', 'button', 'input', 'select', 'textarea', 'summary', 'h1', 'h2', 'h3', 'h4',
    'h5', 'h6', 'iframe', 'frame', 'svg',
  ]);

  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'switch', 'textbox', 'combobox', 'slider', 'spinbutton',
    'searchbox', 'treeitem', 'listbox',
  ]);

  // Roles whose accessible name may come from their content (ARIA "name from content").
  const NAME_FROM_CONTENT = new Set([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem',
  ]);

  const CHECKABLE_ROLES = new Set([
    'checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio',
  ]);
  const SELECTABLE_ROLES = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem']);
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter']);
  const FORM_CONTROL_TAGS = new Set([
    'button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset',
  ]);
  const LABELABLE_SELECTOR =
    'input:not([type=hidden]),select,textarea,button,meter,output,progress';

  // Input types the host fills by selecting the content and typing.
  const TEXT_INPUT_TYPES = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number']);
  // Input types with a native picker: the value is set directly.
  const SET_INPUT_TYPES = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  const VALUE_FORMATS = {
    date: 'YYYY-MM-DD',
    time: 'HH:MM or HH:MM:SS',
    'datetime-local': 'YYYY-MM-DDTHH:MM',
    month: 'YYYY-MM',
    week: 'YYYY-Www, e.g. 2024-W07',
    color: '#rrggbb',
    range: 'a number',
  };
