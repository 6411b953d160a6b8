// The Widget operator of the sample charts (test/charts/operator, test/charts/app), small enough to
// read in one sitting and run by the bare Node binary (no npm packages: the container image is
// the Node 24 binary, its shared libraries and this file; see test/operator/image.sh).
//
// It does three things a real operator does:
//   1. watches Widgets (<group>/v1, all namespaces) and removes its finalizer <group>/cleanup from
//      every Widget being deleted (list, then watch from the list's resourceVersion; a 410 Gone or a
//      closed stream relists);
//   2. serves a validating admission webhook over TLS: POST /validate takes an AdmissionReview v1 and
//      denies a Widget whose spec.size is a negative number (the message names the operator), allows
//      everything else; GET /healthz answers "ok" (the readiness probe);
//   3. holds a coordination.k8s.io/v1 Lease (leader election, when LEASE_NAME is set) and reconciles
//      only while it holds it; it renews every 2 s and takes over a Lease whose holder has not
//      renewed within leaseDurationSeconds (15).
//
// Configuration (environment):
//   WIDGET_GROUP        the Widgets' API group (required)
//   WEBHOOK_PORT        port of the TLS server (default 8443), 0 = any free port (printed)
//   WEBHOOK_HOST        address it listens on (default 0.0.0.0)
//   TLS_CERT_FILE, TLS_KEY_FILE   the server's certificate and key (default /tls/tls.crt, /tls/tls.key)
//   LEASE_NAMESPACE, LEASE_NAME   the Lease to hold (no LEASE_NAME: no leader election, always active)
//   POD_NAME            the holder identity (default: host name + pid)
//   Access to the API server, either in-cluster (KUBERNETES_SERVICE_HOST/PORT, the service account's
//   token and ca.crt under /var/run/secrets/kubernetes.io/serviceaccount) or, outside a cluster,
//   KUBE_API_URL with KUBE_CA_FILE and KUBE_CERT_FILE + KUBE_KEY_FILE (a client certificate) or
//   KUBE_TOKEN_FILE.
// It logs one line per event to stdout ("removed finalizer ...", "leader ...", "webhook ...") and
// stops on SIGTERM/SIGINT (exit 0).
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, URLSearchParams } from 'node:url';

const env = process.env;
const group = env.WIDGET_GROUP;
if (!group) {
  console.error('widget-operator: set WIDGET_GROUP to the API group of the Widgets');
  process.exit(2);
}
const finalizer = `${group}/cleanup`;
const identity = env.POD_NAME || `${hostname()}-${process.pid}`;
const log = (line) => console.log(`${new Date().toISOString()} ${line}`);

// ---- API server access -------------------------------------------------------------------------
const saDir = '/var/run/secrets/kubernetes.io/serviceaccount';
const inCluster = Boolean(env.KUBERNETES_SERVICE_HOST);
const apiUrl = new URL(
  inCluster
    ? `https://${env.KUBERNETES_SERVICE_HOST}:${env.KUBERNETES_SERVICE_PORT || 443}`
    : env.KUBE_API_URL || '',
);
const tokenFile = inCluster ? `${saDir}/token` : env.KUBE_TOKEN_FILE;
const agent = new https.Agent({
  keepAlive: true,
  ca: readFileSync(inCluster ? `${saDir}/ca.crt` : env.KUBE_CA_FILE),
  ...(env.KUBE_CERT_FILE && !inCluster
    ? { cert: readFileSync(env.KUBE_CERT_FILE), key: readFileSync(env.KUBE_KEY_FILE) }
    : {}),
});

function headers(extra = {}) {
  // The projected token is rotated by the kubelet: read it for every request.
  return tokenFile ? { ...extra, authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` } : extra;
}

/** One API request; resolves to { status, body } (body parsed when JSON). */
function api(method, path, body, contentType = 'application/json') {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      new URL(path, apiUrl),
      {
        method,
        agent,
        timeout: 10_000,
        headers: headers({ accept: 'application/json', ...(payload ? { 'content-type': contentType } : {}) }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

let stopping = false;

// ---- leader election ---------------------------------------------------------------------------
let leader = !env.LEASE_NAME;
const leaseSeconds = 15;
const microTime = (d = new Date()) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

async function leaseOnce() {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${env.LEASE_NAMESPACE}/leases/${env.LEASE_NAME}`;
  const now = microTime();
  const got = await api('GET', path);
  if (got.status === 404) {
    const created = await api(
      'POST',
      `/apis/coordination.k8s.io/v1/namespaces/${env.LEASE_NAMESPACE}/leases`,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: env.LEASE_NAME, namespace: env.LEASE_NAMESPACE },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: leaseSeconds,
          acquireTime: now,
          renewTime: now,
        },
      },
    );
    return created.status === 201;
  }
  if (got.status !== 200) throw new Error(`reading Lease ${env.LEASE_NAME}: HTTP ${got.status}`);
  const lease = got.body;
  const spec = lease.spec ?? {};
  const mine = spec.holderIdentity === identity;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? 0);
  const expired =
    !spec.holderIdentity || Date.now() - renewed > (spec.leaseDurationSeconds ?? leaseSeconds) * 1000;
  if (!mine && !expired) return false;
  lease.spec = {
    ...spec,
    holderIdentity: identity,
    leaseDurationSeconds: leaseSeconds,
    renewTime: now,
    ...(mine ? {} : { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
  };
  const put = await api('PUT', path, lease); // carries resourceVersion: a concurrent writer gets 409
  return put.status === 200;
}

async function electLoop() {
  while (!stopping) {
    let holds = false;
    try {
      holds = await leaseOnce();
    } catch (error) {
      log(`leader election: ${error.message}`);
    }
    if (holds !== leader) {
      leader = holds;
      log(
        holds
          ? `leader: acquired Lease ${env.LEASE_NAMESPACE}/${env.LEASE_NAME} as ${identity}`
          : 'leader: lost the Lease',
      );
      if (holds) relist().catch((e) => log(`controller: ${e.message}`));
    }
    await sleep(2000);
  }
}

// ---- the finalizer controller ------------------------------------------------------------------
const widgetsPath = `/apis/${group}/v1/widgets`;

async function reconcile(widget) {
  const meta = widget.metadata ?? {};
  const finalizers = meta.finalizers ?? [];
  if (!leader || !meta.deletionTimestamp || !finalizers.includes(finalizer)) return;
  const path = `/apis/${group}/v1/namespaces/${meta.namespace}/widgets/${meta.name}`;
  // test + replace: the patch fails (422) when someone else changed the list meanwhile; the next
  // event (or relist) brings the new list.
  const patched = await api(
    'PATCH',
    path,
    [
      { op: 'test', path: '/metadata/finalizers', value: finalizers },
      { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== finalizer) },
    ],
    'application/json-patch+json',
  );
  if (patched.status === 200)
    log(`removed finalizer ${finalizer} from Widget ${meta.namespace}/${meta.name}`);
  else if (patched.status !== 404)
    log(`removing ${finalizer} from ${meta.namespace}/${meta.name}: HTTP ${patched.status}`);
}

let resourceVersion = '';
async function relist() {
  const listed = await api('GET', widgetsPath);
  if (listed.status !== 200) throw new Error(`listing ${widgetsPath}: HTTP ${listed.status}`);
  resourceVersion = listed.body.metadata.resourceVersion;
  for (const item of listed.body.items) await reconcile(item);
}

/** One watch from `resourceVersion`; resolves when the stream ends, rejects on 410 Gone. */
function watchOnce() {
  return new Promise((resolve, reject) => {
    const url = new URL(widgetsPath, apiUrl);
    url.search = new URLSearchParams({
      watch: '1',
      resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: '60',
    }).toString();
    const req = https.request(
      url,
      { method: 'GET', agent, headers: headers({ accept: 'application/json' }) },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`watching ${widgetsPath}: HTTP ${res.statusCode}`));
          return;
        }
        let buffer = '';
        let chain = Promise.resolve();
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          let nl;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            const event = JSON.parse(line);
            if (event.type === 'ERROR') {
              req.destroy();
              reject(new Error(`watch: ${event.object?.message ?? 'error'} (code ${event.object?.code})`));
              return;
            }
            resourceVersion = event.object?.metadata?.resourceVersion ?? resourceVersion;
            if (event.type === 'ADDED' || event.type === 'MODIFIED') {
              chain = chain.then(() => reconcile(event.object)).catch((e) => log(`reconcile: ${e.message}`));
            }
          }
        });
        res.on('end', () => chain.then(resolve));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function controllerLoop() {
  let listed = false;
  while (!stopping) {
    try {
      if (!listed) {
        await relist();
        listed = true;
        log(`watching ${widgetsPath} from resourceVersion ${resourceVersion}`);
      }
      await watchOnce();
    } catch (error) {
      // 404 while the CRD is absent or going, 410 Gone, a dropped connection: relist after a pause.
      log(`controller: ${error.message}; relisting`);
      listed = false;
      await sleep(1000);
    }
  }
}

// ---- the admission webhook ---------------------------------------------------------------------
/** The AdmissionReview v1 response for one request (k8s.io/api/admission/v1). */
function review(request) {
  const size = request?.object?.spec?.size;
  const allowed = !(typeof size === 'number' && size < 0);
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid: request?.uid ?? '',
      allowed,
      ...(allowed
        ? {}
        : { status: { code: 403, message: `widget-operator: spec.size must be >= 0, not ${size}` } }),
    },
  };
}

const server = https.createServer(
  {
    cert: readFileSync(env.TLS_CERT_FILE || '/tls/tls.crt'),
    key: readFileSync(env.TLS_KEY_FILE || '/tls/tls.key'),
  },
  (req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/validate')) {
      res.writeHead(404).end();
      return;
    }
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      let answer;
      try {
        const request = JSON.parse(text).request;
        answer = review(request);
        const o = request.object?.metadata ?? {};
        log(
          `webhook: ${request.operation} Widget ${request.namespace}/${o.name ?? request.name}: ${answer.response.allowed ? 'allowed' : 'denied'}`,
        );
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad AdmissionReview: ${error.message}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  },
);

function stop(signal) {
  if (stopping) return;
  stopping = true;
  log(`stopping on ${signal}`);
  server.close();
  agent.destroy();
  process.exit(0);
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

server.listen(Number(env.WEBHOOK_PORT ?? 8443), env.WEBHOOK_HOST || '0.0.0.0', () => {
  log(`webhook: serving https on port ${server.address().port} (identity ${identity}, group ${group})`);
  if (env.LEASE_NAME) void electLoop();
  void controllerLoop();
});
