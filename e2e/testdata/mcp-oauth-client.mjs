// An MCP client that signs in with the official TypeScript SDK's own OAuth
// client (e2e/oauth_sdk_test.go runs it): discovery from the 401,
// registration (dynamic, or a client ID metadata document with "cimd"),
// authorization with PKCE (the test's browser consents; the code comes
// back to the loopback redirect URI served here), tools/call, a refresh,
// the /mcp token refused by the API, then a revoked refresh token refused.
// Each step prints one line; the test reads them.
import http from 'node:http';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, auth, refreshAuthorization, discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js';

const [serverUrl, port, mode, metadataUrl] = process.argv.slice(2);
const mcpUrl = new URL(serverUrl + '/mcp');
const redirectUrl = `http://127.0.0.1:${port}/callback`;
const log = (...a) => console.log(...a);
const stdin = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((res) => stdin.once('line', res));

let onCallback;
const callback = http.createServer((req, res) => {
  const u = new URL(req.url, redirectUrl);
  res.end('Signed in; you can close this tab.');
  if (u.pathname === '/callback') onCallback?.(u);
});
await new Promise((r) => callback.listen(Number(port), '127.0.0.1', r));

const store = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'SDK e2e client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  },
  clientMetadataUrl: mode === 'cimd' ? metadataUrl : undefined,
  state() { return (store.state = 'st-' + Math.random().toString(36).slice(2)); },
  clientInformation() { return store.client; },
  saveClientInformation(c) { store.client = c; log('REGISTERED', c.client_id.startsWith('https://') ? 'metadata-document' : 'dynamic'); },
  tokens() { return store.tokens; },
  saveTokens(t) { store.tokens = t; log('TOKENS', `expires_in=${t.expires_in}`, `refresh_token=${t.refresh_token ? 'yes' : 'no'}`); },
  redirectToAuthorization(u) { log('AUTHORIZE', u.toString()); },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
};

const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
const gotCode = new Promise((res) => { onCallback = res; });
try {
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  log('FAIL connected without signing in');
  process.exit(1);
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  log('UNAUTHORIZED', 'the 401 led to discovery and the authorization URL');
}
const back = await gotCode;
const q = back.searchParams;
log('CALLBACK', `state=${q.get('state') === store.state ? 'matches' : 'WRONG'}`, `iss=${q.get('iss')}`, `code=${q.get('code') ? 'yes' : 'no'}`);
const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
await transport.finishAuth(q.get('code'));
await client.connect(transport);
log('CONNECTED', client.getServerVersion()?.name);

const key = `oauth-${mode}.md`;
const w = await client.callTool({ name: 'write_memory', arguments: { repo: 'acme/api', key,
  content: '---\ndescription: written by an MCP client signed in with OAuth\n---\nhello\n' } });
log('CALL write_memory', w.isError ? 'error ' + JSON.stringify(w.content) : 'ok');

const api = await fetch(serverUrl + '/api/v1/repos', { headers: { Authorization: 'Bearer ' + store.tokens.access_token } });
log('API with the /mcp token', api.status);

const before = store.tokens.refresh_token;
const result = await auth(provider, { serverUrl: mcpUrl });
log('REFRESH', result, `rotated=${store.tokens.refresh_token !== before}`);
const r = await client.callTool({ name: 'read_memory', arguments: { repo: 'acme/api', key } });
log('CALL read_memory after refresh', r.isError ? 'error ' + JSON.stringify(r.content) : 'ok');

log('READY-TO-REVOKE');
await nextLine();
const metadata = await discoverAuthorizationServerMetadata(serverUrl);
try {
  await refreshAuthorization(serverUrl, { metadata, clientInformation: store.client ?? { client_id: metadataUrl },
    refreshToken: store.tokens.refresh_token, resource: mcpUrl });
  log('REVOKED-REFRESH accepted');
} catch (e) {
  log('REVOKED-REFRESH refused', e.constructor.name, e.message);
}
const after = await fetch(mcpUrl, { method: 'POST', headers: { Authorization: 'Bearer ' + store.tokens.access_token,
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
log('MCP with the revoked session\'s access token', after.status);
callback.close();
process.exit(0);
