// @ts-check
/** Building the page: elements from data, text always as text (never parsed as HTML). */

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * An element: `attrs` sets `testid` (data-testid), `class`, `on<event>` listeners, `data-*`
 * and `aria-*` attributes, and any other key as a property (value, disabled, href, …).
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "testid") el.dataset.testid = String(value);
    else if (key === "class") el.className = String(value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    } else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role" ||
               key === "for" || key === "lang" || key === "download") {
      el.setAttribute(key, value === true ? "" : String(value));
    } else {
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[key] = value;
    }
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {(Child | Child[])[]} children
 */
export function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "number" ? String(child) : child);
  }
}

/**
 * Replace an element's children.
 * @param {Element} el
 * @param {...(Child | Child[])} children
 */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/**
 * A <select> of [value, label] pairs.
 * @param {Record<string, unknown>} attrs
 * @param {[string, string][]} options
 * @param {string} [selected]
 * @returns {HTMLSelectElement}
 */
export function select(attrs, options, selected) {
  const el = /** @type {HTMLSelectElement} */ (
    h("select", attrs, ...options.map(([value, label]) => h("option", { value }, label)))
  );
  if (selected !== undefined) el.value = selected;
  return el;
}
