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
  const active = document.activeElement;
  const had = active instanceof HTMLElement && active !== el && el.contains(active) ? placeOf(el, active) : null;
  el.replaceChildren();
  append(el, children);
  // The focus was in what is drawn again (a list refreshed, a chip removed): it stays there, on
  // the same control where there is one, else on the one now at its place, not lost to <body>.
  if (had && !el.contains(document.activeElement)) {
    const all = focusables(el);
    const same = all.filter((e) => keyOf(e) === had.key);
    const target = same[Math.min(had.nth, same.length - 1)] ?? all[Math.min(had.index, all.length - 1)];
    target?.focus({ preventScroll: true });
  }
}

/** What can take the focus in `el`, in order. @param {Element} el @returns {HTMLElement[]} */
function focusables(el) {
  return /** @type {HTMLElement[]} */ (Array.from(el.querySelectorAll(
    'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea, [tabindex]:not([tabindex="-1"])')));
}

/** A control's name across a redraw: its kind, test id and the id of what it stands for. @param {HTMLElement} e */
function keyOf(e) {
  const d = e.dataset;
  return [e.tagName, d.testid ?? "", d.matchId ?? d.card ?? d.player ?? d.seat ?? d.id ?? e.id].join("|");
}

/** @param {Element} el @param {HTMLElement} active */
function placeOf(el, active) {
  const all = focusables(el);
  const key = keyOf(active);
  return { key, nth: all.filter((e) => keyOf(e) === key).indexOf(active), index: Math.max(0, all.indexOf(active)) };
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
