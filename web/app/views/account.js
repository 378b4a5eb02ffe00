// @ts-check
/**
 * #/account (signed in): the display name others see (changed in place), change the password (every other session is signed out), the list of
 * one's sessions (tokens: the device, when made, when last used, this one) with a button that
 * signs any of them out and one that signs out every other, notifications on this device (Web Push: push.js) turned on or off, and deleting the
 * account (its password and a tick that says the person means it,
 * then a second button that does it).
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { pushOff, pushOn, pushState } from "../push.js";
import { currentPlayer, endSession, forgetPlayer, hideError, messageOf, shortTime, showError } from "../ui.js";

/**
 * @param {string} id
 * @param {string} testid
 * @param {string} autocomplete
 */
function passwordInput(id, testid, autocomplete) {
  return /** @type {HTMLInputElement} */ (h("input", { id, testid, type: "password", autocomplete,
    maxLength: 128, required: true }));
}

/** @param {HTMLElement} root */
export async function accountView(root) {
  if (!api.token()) {
    location.hash = "#/login";
    return;
  }
  const notice = h("p", { class: "notice", testid: "account-notice", role: "status", hidden: true });
  /** @param {string} text */
  function tell(text) {
    notice.textContent = text;
    notice.hidden = false;
  }

  // ---- sessions ----
  const sessions = h("tbody", { testid: "sessions-body" });
  async function loadSessions() {
    try {
      const rows = await api.tokens();
      othersButton.hidden = !rows.some((row) => !row.current);
      fill(sessions, rows.map((row) => h("tr", { testid: "session-row", "data-current": row.current ? "true" : "false" },
        h("td", {}, h("span", { testid: "session-device" }, row.device || t("account.unknownDevice")),
          row.current ? h("strong", { class: "session-here", testid: "session-current" }, t("account.thisDevice")) : null),
        h("td", { "data-label": t("account.created") }, shortTime(row.created_at)),
        h("td", { "data-label": t("account.lastUsed") }, shortTime(row.last_used)),
        h("td", { class: "session-action" }, h("button", { type: "button", testid: "session-revoke", onclick: () => revoke(row.id, row.current) },
          row.current ? t("account.signOutHere") : t("account.revoke"))))));
    } catch (error) {
      showError(error);
    }
  }

  /**
   * @param {string} id
   * @param {boolean} current
   */
  async function revoke(id, current) {
    notice.hidden = true;
    try {
      await api.revokeToken(id);
    } catch (error) {
      showError(error);
      return;
    }
    if (current) {
      endSession(); // the token is gone (revoked, or the account deleted)
      return;
    }
    tell(t("account.revoked"));
    await loadSessions();
  }

  const othersButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "sessions-revoke-others",
    hidden: true, onclick: () => revokeOthers() }, t("account.revokeOthers")));

  async function revokeOthers() {
    notice.hidden = true;
    try {
      const { revoked } = await api.revokeOtherTokens();
      hideError();
      tell(revoked === 0 ? t("account.noOthers") : t("account.revokedOthers", { n: revoked }));
    } catch (error) {
      showError(error);
    }
    await loadSessions();
  }

  // ---- notifications on this device ----
  const pushStatus = h("p", { class: "muted", testid: "push-status", role: "status" });
  const pushButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "push-toggle",
    hidden: true, onclick: () => togglePush() }));
  /** @type {import("../push.js").PushState} */
  let pushNow = "off";
  /** @param {import("../push.js").PushState} state */
  function showPush(state) {
    pushNow = state;
    const words = { unsupported: "account.pushUnsupported", "server-off": "account.pushServerOff",
      denied: "account.pushDenied", off: "account.pushIsOff", on: "account.pushIsOn" };
    pushStatus.textContent = t(words[state]);
    pushStatus.dataset.state = state;
    pushButton.hidden = state !== "on" && state !== "off";
    pushButton.textContent = state === "on" ? t("account.pushOff") : t("account.pushOn");
  }
  async function togglePush() {
    notice.hidden = true;
    pushButton.disabled = true;
    try {
      showPush(pushNow === "on" ? await pushOff() : await pushOn());
    } catch (error) {
      showError(t("account.pushFailed", { reason: error instanceof Error ? error.message : String(error) }));
    } finally {
      pushButton.disabled = false;
    }
  }

  // ---- the display name ----
  const nameInput = /** @type {HTMLInputElement} */ (h("input", { id: "account-name", testid: "account-display-name",
    maxLength: 40, required: true, autocomplete: "nickname" }));
  currentPlayer().then((me) => {
    if (me && !nameInput.value) nameInput.value = me.display_name;
  }, () => {});
  async function changeName() {
    notice.hidden = true;
    try {
      const me = await api.updateMe({ display_name: nameInput.value });
      nameInput.value = me.display_name;
      forgetPlayer(); // read again where the page shows the player
    } catch (error) {
      showError(error);
      return;
    }
    hideError();
    tell(t("account.nameChanged"));
  }

  // ---- password ----
  const oldPassword = passwordInput("account-old", "account-old-password", "current-password");
  const newPassword = passwordInput("account-new", "account-new-password", "new-password");
  const again = passwordInput("account-again", "account-new-again", "new-password");
  async function changePassword() {
    notice.hidden = true;
    if (!oldPassword.value || !newPassword.value) {
      showError(t("account.missing"));
      return;
    }
    if (newPassword.value !== again.value) {
      showError(t("account.mismatch"));
      return;
    }
    try {
      await api.changePassword({ old_password: oldPassword.value, new_password: newPassword.value });
    } catch (error) {
      showError(error);
      return;
    }
    hideError();
    for (const input of [oldPassword, newPassword, again]) input.value = "";
    tell(t("account.passwordChanged"));
    await loadSessions();
  }

  // ---- deletion: the password and a tick, then a second click that does it ----
  const deletePassword = passwordInput("account-delete-password", "account-delete-password", "current-password");
  // A refusal of the password is said by the field too (read with it once it has the focus).
  const deleteError = h("p", { id: "account-delete-error", class: "field-error", testid: "account-delete-error",
    hidden: true });
  deletePassword.setAttribute("aria-describedby", "account-delete-error");
  deletePassword.addEventListener("input", () => {
    deletePassword.removeAttribute("aria-invalid");
    deleteError.hidden = true;
  });
  const understood = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "account-delete-understood",
    testid: "account-delete-understood" }));
  const confirmBox = h("div", { class: "row", testid: "account-delete-confirm", hidden: true },
    h("strong", {}, t("account.deleteSure")),
    h("button", { type: "button", class: "primary", testid: "account-delete-confirm-button",
      onclick: () => deleteAccount() }, t("account.deleteConfirm")),
    h("button", { type: "button", testid: "account-delete-cancel", onclick: () => {
      confirmBox.hidden = true;
      deleteSubmit.focus(); // not lost with the button that hides
    } }, t("account.deleteCancel")));
  const deleteSubmit = h("button", { type: "submit", testid: "account-delete-submit" }, t("account.delete"));
  function askToDelete() {
    notice.hidden = true;
    if (!deletePassword.value) {
      showError(t("account.deleteMissing"));
      return;
    }
    if (!understood.checked) {
      showError(t("account.deleteTick"));
      return;
    }
    hideError(); // an earlier refusal is answered now
    confirmBox.hidden = false;
  }
  async function deleteAccount() {
    try {
      await api.deleteAccount({ password: deletePassword.value });
    } catch (error) {
      confirmBox.hidden = true;
      showError(error);
      if (error instanceof api.ApiError && error.status === 401) return; // signed out: the sign-in page
      // The focus was on the button just hidden: it goes to the password, which says why.
      deleteError.textContent = messageOf(error);
      deleteError.hidden = false;
      deletePassword.setAttribute("aria-invalid", "true");
      deletePassword.focus();
      deletePassword.select();
      return;
    }
    hideError();
    endSession(t("account.deleted")); // the token is gone with the account: the sign-in page says so
  }

  root.append(h("section", { class: "card-panel account-page", testid: "account" },
    h("h1", {}, t("account.title")),
    notice,
    h("h2", {}, t("account.nameTitle")),
    h("p", { class: "muted" }, t("account.nameIntro")),
    h("form", { testid: "account-name-form", onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      changeName();
    } },
    h("label", { for: "account-name" }, t("account.name")), nameInput,
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary", testid: "account-name-submit" }, t("account.nameSave")))),
    h("h2", {}, t("account.passwordTitle")),
    h("form", { testid: "account-password-form", onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      changePassword();
    } },
    h("label", { for: "account-old" }, t("account.oldPassword")), oldPassword,
    h("label", { for: "account-new" }, t("account.newPassword")), newPassword,
    h("label", { for: "account-again" }, t("account.newAgain")), again,
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary", testid: "account-password-submit" }, t("account.change")))),
    h("h2", {}, t("account.sessionsTitle")),
    h("p", { class: "muted" }, t("account.sessionsIntro")),
    h("div", { class: "scroll" }, h("table", { class: "grid sessions" },
      h("thead", {}, h("tr", {},
        h("th", {}, t("account.device")), h("th", {}, t("account.created")), h("th", {}, t("account.lastUsed")),
        h("th", {}, h("span", { class: "visually-hidden" }, t("account.actions"))))),
      sessions)),
    h("div", { class: "row" }, othersButton),
    h("h2", {}, t("account.pushTitle")),
    h("p", {}, t("account.pushIntro")),
    pushStatus,
    h("div", { class: "row" }, pushButton),
    h("div", { class: "danger" },
      h("h2", {}, t("account.deleteTitle")),
      h("p", {}, t("account.deleteIntro")),
      h("form", { testid: "account-delete-form", onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault();
        askToDelete();
      } },
      h("label", { for: "account-delete-password" }, t("account.deletePassword")), deletePassword, deleteError,
      h("label", { for: "account-delete-understood" }, understood, " ", t("account.deleteUnderstood")),
      h("div", { class: "row" }, deleteSubmit)),
      confirmBox)));
  await loadSessions();
  try {
    showPush(await pushState());
  } catch (error) {
    showError(error);
  }
}
