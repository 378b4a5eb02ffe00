// @ts-check
/** #/login: sign up or sign in; the token is kept in localStorage["pisyedili.token"]. */

import * as api from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { forgetPlayer, showError } from "../ui.js";

/** @param {HTMLElement} root */
export async function loginView(root) {
  const name = /** @type {HTMLInputElement} */ (
    h("input", { testid: "auth-username", id: "auth-username", autocomplete: "username", required: true })
  );
  const password = /** @type {HTMLInputElement} */ (
    h("input", {
      testid: "auth-password",
      id: "auth-password",
      type: "password",
      autocomplete: "current-password",
      required: true,
    })
  );

  /** @param {"register" | "login"} how */
  async function submit(how) {
    const username = name.value.trim();
    if (!username || !password.value) {
      showError(t("auth.missing"));
      return;
    }
    try {
      const body = { username, password: password.value };
      const answer = how === "register" ? await api.register(body) : await api.login(body);
      api.setSession(answer.token, username);
      forgetPlayer();
      location.hash = "#/lobby";
    } catch (error) {
      if (error instanceof api.ApiError && error.detail) {
        const fields = Object.values(error.detail).flat().filter((m) => typeof m === "string");
        if (fields.length) {
          showError(`${error.message} ${fields.join(" ")}`);
          return;
        }
      }
      showError(error);
    }
  }

  root.append(
    h(
      "section",
      { class: "card-panel auth" },
      h("h1", {}, t("auth.title")),
      h("p", {}, t("auth.intro")),
      h(
        "form",
        {
          onsubmit: (/** @type {Event} */ event) => {
            event.preventDefault();
            submit("login");
          },
        },
        h("label", { for: "auth-username" }, t("auth.username")),
        name,
        h("label", { for: "auth-password" }, t("auth.password")),
        password,
        h(
          "div",
          { class: "row" },
          h("button", { testid: "auth-login", type: "submit", class: "primary" }, t("auth.login")),
          h("button", { testid: "auth-register", type: "button", onclick: () => submit("register") },
            t("auth.register")),
        ),
      ),
    ),
  );
}
