// A real OpenID provider for the single sign-on tests (tests/accounts/test_oidc*.py,
// tests/e2e/test_oidc.py): the certified `oidc-provider` package from npm, on a loopback port,
// with a sign-in form that lets the test choose the account's claims. Started and stopped by
// testsupport/oidc_provider.py; nothing here is served by Deniable.
//
// Environment: OIDC_PORT, OIDC_ISSUER (default http://127.0.0.1:<port>), OIDC_CLIENTS (JSON list
// of {client_id, client_secret, redirect_uris}).
//
// Test controls (this script only, never a real provider's): POST /__test__/tamper with a JSON
// object of ID-token claims to overwrite in every following token response (re-signed with the
// provider's own key, so only the claims are wrong), {} to stop.
import http from "node:http";
import { URL } from "node:url";
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair, SignJWT, decodeJwt } from "jose";

const port = Number(process.env.OIDC_PORT);
const issuer = process.env.OIDC_ISSUER || `http://127.0.0.1:${port}`;
const clients = JSON.parse(process.env.OIDC_CLIENTS || "[]").map((c) => ({
  token_endpoint_auth_method: "client_secret_post",
  grant_types: ["authorization_code"],
  response_types: ["code"],
  ...c,
}));

const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };

// Accounts exist once the sign-in form names them: sub -> claims.
const accounts = new Map();
let tamper = {};

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [jwk] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  scopes: ["openid", "email", "profile", "groups"],
  claims: {
    // The ID token carries the sign-in's amr (the tests' "mfa"): only the openid scope's claims
    // reach an ID token that comes with an access token.
    openid: ["sub", "acr", "amr"],
    email: ["email", "email_verified"],
    profile: ["name"],
    groups: ["groups"],
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // First-party client: no consent screen.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope("openid email profile groups");
    await grant.save();
    return grant;
  },
  async findAccount(ctx, sub) {
    const claims = accounts.get(sub);
    if (!claims) return undefined;
    return { accountId: sub, claims: async () => ({ sub, ...claims }) };
  },
});

provider.use(async (ctx, next) => {
  await next();
  const changes = Object.keys(tamper).length > 0;
  if (changes && ctx.path === "/token" && ctx.method === "POST" && ctx.body?.id_token) {
    const claims = { ...decodeJwt(ctx.body.id_token), ...tamper };
    ctx.body = {
      ...ctx.body,
      id_token: await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: jwk.kid }).sign(privateKey),
    };
  }
});

const escape = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function form(uid) {
  return `<!doctype html><html lang="en"><head><title>Test provider sign-in</title><link rel="icon" href="data:,"></head><body>
<h1>Test provider</h1>
<form method="post" action="/interaction/${escape(uid)}">
<label for="login">Email</label><input id="login" name="login" autofocus>
<label for="email_verified">Email verified</label>
<select id="email_verified" name="email_verified"><option>true</option><option>false</option></select>
<label for="groups">Groups</label><input id="groups" name="groups">
<label for="amr">amr</label><input id="amr" name="amr" value="pwd">
<button type="submit">Sign in</button></form></body></html>`;
}

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

async function interaction(req, res, uid) {
  const details = await provider.interactionDetails(req, res);
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(form(uid));
    return;
  }
  const fields = new URLSearchParams(await body(req));
  const email = fields.get("login") || "";
  const sub = `sub-${email}`;
  const list = (name) =>
    (fields.get(name) || "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  accounts.set(sub, {
    email,
    email_verified: fields.get("email_verified") !== "false",
    name: email.split("@")[0],
    groups: list("groups"),
  });
  const login = { accountId: sub, amr: list("amr") };
  await provider.interactionFinished(req, res, { login }, { mergeWithLastSubmission: false });
  void details;
}

const callback = provider.callback();
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, issuer);
  try {
    if (url.pathname === "/__test__/tamper" && req.method === "POST") {
      tamper = JSON.parse((await body(req)) || "{}");
      res.writeHead(204).end();
    } else if (url.pathname.startsWith("/interaction/")) {
      await interaction(req, res, url.pathname.split("/")[2]);
    } else {
      callback(req, res);
    }
  } catch (err) {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(err));
  }
});
server.listen(port, "127.0.0.1", () => console.log(`ready ${issuer}`));
