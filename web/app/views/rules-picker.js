// @ts-check
/**
 * The rules of a new match or tournament: one of the server's named rule sets (GET
 * /rules/presets, "Classic" first) or "Custom", which opens every option of GET /rules with its
 * translated label and meaning (docs/rules.md). Choosing a preset sets every option to its
 * values, so "Custom" starts from the preset chosen last. `deals_per_match` has a control of its
 * own in each form and is left out here.
 */

import * as api from "../api.js";
import { h, select } from "../dom.js";
import { has, t } from "../i18n.js";

/** @typedef {api.RuleOption} RuleOption */
/** @typedef {api.Schemas["RulePreset"]} RulePreset */

/**
 * The options and the presets the server offers; a server that does not answer offers Classic
 * (its defaults) and no custom options.
 * @returns {Promise<{ options: RuleOption[], presets: RulePreset[] }>}
 */
export async function loadRules() {
  const [options, presets] = await Promise.all([
    api.rules().catch(() => /** @type {RuleOption[]} */ ([])),
    api.rulePresets().catch(() => [{ name: "classic", rules: {} }]),
  ]);
  return { options: options.filter((o) => o.name !== "deals_per_match"), presets };
}

/** @param {string} name */
export function presetName(name) {
  return has(`preset.${name}`) ? t(`preset.${name}`) : name;
}

/** An option's label. @param {string} name */
function optionLabel(name) {
  return has(`rule.${name}`) ? t(`rule.${name}`) : name;
}

/**
 * The words of an option's value (a choice's, yes/no, or the number).
 * @param {string} name
 * @param {unknown} value
 */
function valueText(name, value) {
  if (typeof value === "boolean") return t(`rules.${value}`);
  return has(`rule.${name}.${value}`) ? t(`rule.${name}.${value}`) : String(value);
}

/**
 * A table's rules told: the preset they are (`preset` null: custom rules), its name, and every
 * option with its label and its value's words, `changed` where it is not the default;
 * `changes` the changed ones as one line. `deals_per_match` is told apart (it is the match's
 * length, not a rule of play).
 * @param {Record<string, unknown>} rules every option, as a match holds them
 * @param {{ options: RuleOption[], presets: RulePreset[] }} offered
 */
export function describeRules(rules, { options, presets }) {
  const defaults = Object.fromEntries(options.map((o) => [o.name, o.default]));
  const full = { ...defaults, ...rules };
  const same = (/** @type {Record<string, unknown>} */ a) =>
    Object.keys({ ...a, ...full }).every((k) => k === "deals_per_match" || a[k] === full[k]);
  const preset = options.length ? presets.find((p) => same({ ...defaults, ...p.rules })) : undefined;
  const lines = options.map((o) => ({
    name: o.name,
    label: optionLabel(o.name),
    value: valueText(o.name, full[o.name]),
    changed: full[o.name] !== o.default,
  }));
  const changes = lines.filter((l) => l.changed).map((l) => `${l.label}: ${l.value}`).join("; ");
  return {
    preset: preset?.name ?? null,
    name: preset ? presetName(preset.name) : t("preset.custom"),
    lines,
    changes,
  };
}

/**
 * The rules of a table to read before and while playing: a disclosure named by the preset,
 * opening on every option, those that differ from the classic rules first and marked.
 * @param {Record<string, unknown>} rules
 * @param {{ options: RuleOption[], presets: RulePreset[] }} offered
 */
export function rulesPanel(rules, offered) {
  const told = describeRules(rules, offered);
  const lines = [...told.lines.filter((l) => l.changed), ...told.lines.filter((l) => !l.changed)];
  return h("details", { class: "card-panel table-rules", testid: "table-rules", "data-preset": told.preset ?? "custom" },
    h("summary", {}, t("table.rules", { name: told.name })),
    told.preset && has(`preset.about.${told.preset}`) ? h("p", { class: "preset-about" }, t(`preset.about.${told.preset}`)) : null,
    h("dl", { class: "rules-list" }, lines.flatMap((l) => [
      h("dt", { class: l.changed ? "changed" : "" }, l.label),
      h("dd", { class: l.changed ? "changed" : "", testid: `table-rule-${l.name}`, "data-changed": String(l.changed) },
        l.value),
    ])));
}

/**
 * @param {{ options: RuleOption[], presets: RulePreset[] }} offered
 * @param {{ presets: string, preset: string, box: string, rule: string }} ids test ids: of
 *   the presets' fieldset, each preset's radio (a prefix of its name), the box of every option,
 *   each option's control (a prefix of its name, also its id)
 * @param {() => void} [onChange] called when the chosen rules change
 * @returns {{ element: HTMLElement, rules: () => Record<string, unknown>, maxPlayers: () => number }}
 *   the picker, the chosen rules (the options that differ from the defaults), and the most
 *   seats they allow (`max_players`, R-7)
 */
export function rulesPicker({ options, presets }, ids, onChange = () => {}) {
  /** @type {Map<string, HTMLSelectElement | HTMLInputElement>} */
  const controls = new Map();
  const box = h("div", { class: "rules-grid", testid: ids.box, hidden: true });
  for (const option of options) {
    const id = `${ids.rule}${option.name}`;
    const about = has(`rule.about.${option.name}`) ? t(`rule.about.${option.name}`) : "";
    const control = option.choices
      ? select({ testid: id, id, "aria-describedby": `${id}-about` },
          option.choices.map((c) => [String(c), valueText(option.name, c)]),
          String(option.default))
      : /** @type {HTMLInputElement} */ (h("input", { testid: id, id, type: "number", min: option.min,
          max: option.max, value: String(option.default), "aria-describedby": `${id}-about` }));
    controls.set(option.name, control);
    control.addEventListener("change", onChange);
    box.append(h("div", { class: "rule-option" },
      h("label", { for: id }, optionLabel(option.name)),
      control,
      h("p", { class: "rule-about", id: `${id}-about` }, about)));
  }
  /** Every option to a preset's values (the defaults for what it leaves out). */
  const apply = (/** @type {string} */ name) => {
    box.hidden = name !== "custom";
    const preset = presets.find((p) => p.name === name);
    if (!preset) return;
    for (const option of options) {
      const control = controls.get(option.name);
      if (control) control.value = String(preset.rules[option.name] ?? option.default);
    }
  };
  const names = [...presets.map((p) => p.name), ...(options.length ? ["custom"] : [])];
  const element = h("div", {},
    h("fieldset", { class: "presets", testid: ids.presets },
      h("legend", {}, t("lobby.rules")),
      names.map((name, i) =>
        h("label", { class: "preset" },
          h("input", { type: "radio", name: ids.preset, value: name, testid: `${ids.preset}${name}`,
            checked: i === 0, onchange: () => { apply(name); onChange(); } }),
          h("span", { class: "preset-text" },
            h("strong", {}, presetName(name)),
            has(`preset.about.${name}`) ? h("span", { class: "preset-about" }, t(`preset.about.${name}`)) : null)))),
    box);
  apply(names[0] ?? "custom");

  function rules() {
    const chosen = /** @type {HTMLInputElement | null} */ (element.querySelector(`input[name="${ids.preset}"]:checked`));
    const preset = presets.find((p) => p.name === chosen?.value);
    if (preset && !options.length) return { ...preset.rules };
    /** @type {Record<string, unknown>} */
    const picked = {};
    for (const option of options) {
      const control = controls.get(option.name);
      if (!control) continue;
      /** @type {unknown} */
      let value = control.value;
      if (typeof option.default === "boolean") value = control.value === "true";
      else if (typeof option.default === "number") value = Number(control.value);
      if (value !== option.default) picked[option.name] = value;
    }
    return picked;
  }

  function maxPlayers() {
    const option = options.find((o) => o.name === "max_players");
    return Number(rules().max_players ?? option?.default ?? 6);
  }
  return { element, rules, maxPlayers };
}
