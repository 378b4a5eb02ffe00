// @ts-check
/**
 * #/login: sign up or sign in; the token is kept in localStorage["pisyedili.token"]. A refusal
 * shows the server's words once each; a refused sign-in offers to sign up with the same name
 * and password (the server does not say whether a username exists). A join link (or a table to
 * join) opened signed out is opened again once signed in from the sign-in page reached from it.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { forgetPlayer, hideError, showError } from "../ui.js";
import { afterSignIn, keepReturnOnlyForSignIn } from "./private.js";

/**
 * The username of the account a sign-in's token is for (`typed` when it cannot be read).
 * @param {string} token
 * @param {string} typed
 */
async function ownName(token, typed) {
  try {
    return (await api.meWith(token)).username;
  } catch {
    return typed;
  }
}

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

  const offer = h("div", { class: "auth-offer", testid: "auth-offer", hidden: true });

  /** @param {"register" | "login"} how */
  async function submit(how) {
    offer.hidden = true;
    const username = name.value.trim();
    if (!username || !password.value) {
      showError(t("auth.missing"));
      return;
    }
    try {
      const body = { username, password: password.value };
      // The header names the account as it is spelled, not as typed (a sign-in's username is
      // found in any letter case): the registration answers it, a sign-in's token reads it.
      let session;
      if (how === "register") {
        const made = await api.register(body);
        session = { token: made.token, name: made.username };
      } else {
        const { token } = await api.login(body);
        session = { token, name: await ownName(token, username) };
      }
      hideError();
      api.setSession(session.token, session.name);
      forgetPlayer();
      location.hash = afterSignIn();
    } catch (error) {
      showError(error);
      if (how === "login" && error instanceof api.ApiError && error.code === "not_authenticated") {
        fill(offer,
          h("span", {}, t("auth.offer", { name: username })),
          h("button", { type: "button", testid: "auth-offer-register", class: "primary",
            onclick: () => submit("register") }, t("auth.offerButton")));
        offer.hidden = false;
      }
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
      offer,
    ),
  );
  return keepReturnOnlyForSignIn;
}

