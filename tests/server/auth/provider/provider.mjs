// A real OpenID provider for the sign-in tests (oidc-provider, OpenID Certified), on
// 127.0.0.1: dynamic client registration, PKCE, resource indicators (RFC 8707) giving
// access tokens whose `aud` is the resource, and token introspection (RFC 7662). The
// person is automated: the interaction signs in the account named by `login_hint` (the
// tests' users) and consents to what was asked, with no page shown.
//
//   node provider.mjs   (settings from the environment, below)
//
// PROVIDER_PORT         port on 127.0.0.1 (the issuer is http://127.0.0.1:PORT)
// PROVIDER_KEYS         a JSON file {"keys": [private JWKs]}: the first signs
// PROVIDER_SCOPES       scopes a resource server accepts (space-separated)
// PROVIDER_TOKEN_FORMAT jwt (default) or opaque access tokens
// PROVIDER_CLIENT_ID / PROVIDER_CLIENT_SECRET   a pre-registered client that may introspect
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const env = process.env;
const port = Number(env.PROVIDER_PORT);
const issuer = `http://127.0.0.1:${port}`;
const scopes = (env.PROVIDER_SCOPES || 'maps').split(' ').filter(Boolean);
const format = env.PROVIDER_TOKEN_FORMAT || 'jwt';
const jwks = JSON.parse(readFileSync(env.PROVIDER_KEYS, 'utf8'));

const provider = new Provider(issuer, {
  jwks,
  clients: [
    {
      client_id: env.PROVIDER_CLIENT_ID || 'tomtom-mcp-apps',
      client_secret: env.PROVIDER_CLIENT_SECRET || 'resource-server-secret',
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    },
  ],
  cookies: { keys: [randomBytes(32).toString('hex')] },
  scopes: ['openid', 'offline_access', ...scopes],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  pkce: { required: () => true },
  clientBasedCORS: () => true,
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600 },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resource) => ({
        scope: scopes.join(' '),
        audience: resource,
        accessTokenFormat: format,
        accessTokenTTL: 600,
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.proxy = false;

// The person at the browser, automated: sign in as `login_hint`, consent to everything
// asked (the OpenID scopes and each resource's scopes).
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const accountId = details.params.login_hint || 'alice';
  const { missingOIDCScope = [], missingResourceScopes = {} } = details.prompt.details;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: details.params.client_id });
  if (missingOIDCScope.length) grant.addOIDCScope(missingOIDCScope.join(' '));
  for (const [indicator, wanted] of Object.entries(missingResourceScopes)) {
    grant.addResourceScope(indicator, wanted.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

const handle = provider.callback();
createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  handle(req, res);
}).listen(port, '127.0.0.1', () => console.log(`provider ready at ${issuer}`));
