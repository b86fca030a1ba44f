import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants';
import { parseAllDocuments } from 'yaml';
import { Deployment, IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler, IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap, IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { IContainer } from 'kubernetes-models/v1/Container';
import { IProbe } from 'kubernetes-models/v1/Probe';
import { Secret } from 'kubernetes-models/v1/Secret';
import { IService, Service } from 'kubernetes-models/v1/Service';
import { IServiceAccount, ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseConfiguration } from '../../src/config/parse-configuration';
import { AppConfig } from '../../src/config/app-config';
import { ENVIRONMENT_VARIABLES } from '../../src/config/environment';
import { HealthController } from '../../src/health/health.controller';

/*
 * deploy/kubernetes/ checked without a cluster: each YAML document against the Kubernetes OpenAPI
 * schema (kubernetes-models), then what the schema cannot know, that the manifests fit this app and
 * each other. kubernetes-models accepts unknown fields, so the assertions read every field that
 * matters by its correct name, which catches a misspelt one.
 */

const ROOT = join(__dirname, '..', '..');
const MANIFEST_DIR = join(ROOT, 'deploy', 'kubernetes');
const KUSTOMIZATION = 'kustomization.yaml';

/** The variables that must come from the Secret, never from a file. */
const SECRET_VARIABLES = ['GUESTY_CLIENT_ID', 'GUESTY_CLIENT_SECRET', 'REDIS_URL', 'ADMIN_API_KEY', 'GUESTY_WEBHOOK_SECRET'];

interface Validatable {
  validate(): void;
}
/** A kubernetes-models class: validates on `validate()`, throws a ValidationError listing the paths. */
interface ModelClass {
  new (data: never): Validatable;
  apiVersion: string;
  kind: string;
}

/** Every kind the manifests may hold; a new kind must be added here to be validated. */
const MODELS: ModelClass[] = [
  ConfigMap,
  Secret,
  Service,
  ServiceAccount,
  Deployment,
  PodDisruptionBudget,
  HorizontalPodAutoscaler,
  NetworkPolicy,
];

interface Manifest {
  file: string;
  index: number;
  doc: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; labels?: Record<string, string> } } & Record<string, unknown>;
}

function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`missing: ${what}`);
  return value;
}

function yamlFiles(): string[] {
  return readdirSync(MANIFEST_DIR)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
}

function loadYaml(file: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(join(MANIFEST_DIR, file), 'utf8'));
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document, index) => {
    // Syntax errors and duplicate keys (one of the two values would be silently lost).
    const problems = [...document.errors, ...document.warnings].map((error) => error.message);
    if (problems.length > 0) throw new Error(`${file} document ${index}: ${problems.join('; ')}`);
    return document.toJS() as unknown;
  });
}

function loadManifests(): Manifest[] {
  return yamlFiles()
    .filter((file) => file !== KUSTOMIZATION)
    .flatMap((file) =>
      loadYaml(file)
        .filter((doc) => doc !== null && doc !== undefined)
        .map((doc, index) => ({ file, index, doc: doc as Manifest['doc'] })),
    );
}

const manifests = loadManifests();

function modelFor(manifest: Manifest): ModelClass | undefined {
  return MODELS.find((model) => model.apiVersion === manifest.doc.apiVersion && model.kind === manifest.doc.kind);
}

function only<T>(apiVersion: string, kind: string): T {
  const found = manifests.filter((manifest) => manifest.doc.apiVersion === apiVersion && manifest.doc.kind === kind);
  if (found.length !== 1) throw new Error(`expected exactly one ${apiVersion} ${kind}, found ${found.length}`);
  return found[0].doc as T;
}

/** The route a controller method answers, from Nest's own metadata (so a renamed route fails here). */
function routeOf(method: (...args: never[]) => unknown): string {
  const base = String(Reflect.getMetadata(PATH_METADATA, HealthController));
  const path = String(Reflect.getMetadata(PATH_METADATA, method));
  return `/${base}/${path}`.replace(/\/+/g, '/');
}

/** Bytes of a Kubernetes memory quantity (the forms used here: Ki/Mi/Gi, k/M/G, plain bytes). */
function bytes(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity));
  if (!match) throw new Error(`unsupported memory quantity ${quantity}`);
  const factor = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * factor;
}

/** Millicores of a Kubernetes CPU quantity ("250m", "1", "0.5"). */
function millicores(quantity: string | number): number {
  const text = String(quantity);
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

function envExampleVariables(): Set<string> {
  const names = readFileSync(join(ROOT, '.env.example'), 'utf8')
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  return new Set(names);
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  const entries = Object.entries(must(selector, 'selector labels'));
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

describe('deploy/kubernetes manifests', () => {
  describe('schema', () => {
    it('finds manifests', () => {
      expect(manifests.length).toBeGreaterThanOrEqual(7);
    });

    it.each(manifests.map((manifest) => [`${manifest.file}#${manifest.index} ${String(manifest.doc.kind)}`, manifest] as const))(
      '%s is valid against the Kubernetes schema',
      (_name, manifest) => {
        const Model = modelFor(manifest);
        if (!Model)
          throw new Error(
            `${manifest.file}: no kubernetes-models class for ${String(manifest.doc.apiVersion)} ${String(manifest.doc.kind)}; add it to MODELS`,
          );
        expect(() => new Model(manifest.doc as never).validate()).not.toThrow();
        expect(typeof manifest.doc.metadata?.name).toBe('string');
        expect(manifest.doc.metadata?.labels?.['app.kubernetes.io/name']).toBe('booking-checkout');
      },
    );

    it('the validation is real: a wrongly typed field is rejected', () => {
      const deployment = only<IDeployment>('apps/v1', 'Deployment');
      const broken = { ...deployment, spec: { ...deployment.spec, replicas: 'three' } };
      expect(() => new Deployment(broken as never).validate()).toThrow(/replicas/);
    });

    it('kustomization.yaml lists every manifest file, and only existing ones', () => {
      const [kustomization] = loadYaml(KUSTOMIZATION) as [{ kind: string; resources: string[]; images?: { name: string }[] }];
      expect(kustomization.kind).toBe('Kustomization');
      const others = yamlFiles().filter((file) => file !== KUSTOMIZATION);
      expect([...kustomization.resources].sort()).toEqual(others);

      const image = must(only<IDeployment>('apps/v1', 'Deployment').spec?.template.spec?.containers[0].image, 'container image');
      expect(kustomization.images?.map((entry) => entry.name)).toContain(image.split(':')[0]);
    });
  });

  describe('fit with the application', () => {
    const deployment = only<IDeployment>('apps/v1', 'Deployment');
    const configMap = only<IConfigMap>('v1', 'ConfigMap');
    const podSpec = must(deployment.spec?.template.spec, 'pod spec');
    const podLabels = must(deployment.spec?.template.metadata?.labels, 'pod labels');
    const container: IContainer = podSpec.containers[0];
    const env = container.env ?? [];
    const data = must(configMap.data, 'ConfigMap data');

    /** What the app would read in a pod: the ConfigMap plus stand-ins for the Secret's values. */
    function appConfig(): AppConfig {
      return parseConfiguration({
        ...data,
        GUESTY_CLIENT_ID: 'placeholder-client-id',
        GUESTY_CLIENT_SECRET: 'placeholder-client-secret',
        REDIS_URL: 'rediss://redis.example.internal:6380',
        ADMIN_API_KEY: 'placeholder-admin-key-0123456789',
      });
    }

    function containerPort(port: string | number): number {
      if (typeof port === 'number') return port;
      return must(
        container.ports?.find((candidate) => candidate.name === port),
        `container port named ${port}`,
      ).containerPort;
    }

    it("the ConfigMap is accepted by the app's own configuration rules, as production without sandbox", () => {
      const config = appConfig();
      expect(config.runtime.production).toBe(true);
      expect(config.runtime.sandbox).toBe(false);
      expect(config.redis.url?.startsWith('rediss://')).toBe(true);
    });

    it('the container reads the ConfigMap, and every ConfigMap key is a variable the app reads', () => {
      expect(container.envFrom?.map((source) => source.configMapRef?.name)).toContain(configMap.metadata?.name);
      const known = envExampleVariables();
      // NODE_ENV is not in .env.example (it is Node's own), but the configuration's schema reads it.
      expect(ENVIRONMENT_VARIABLES).toContain('NODE_ENV');
      known.add('NODE_ENV');
      expect(Object.keys(data).filter((key) => !known.has(key))).toEqual([]);
      expect(configMap.binaryData).toBeUndefined();
    });

    it('the app listens on the container port, which the probes and the Service use', () => {
      const http = must(
        container.ports?.find((port) => port.name === 'http'),
        'container port "http"',
      );
      expect(http.containerPort).toBe(appConfig().http.port);
      expect(http.containerPort).toBe(Number(data.PORT));
      expect(container.ports).toHaveLength(1);

      for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
        expect(containerPort(must(probe?.httpGet, 'probe httpGet').port)).toBe(http.containerPort);
      }
      const service = only<IService>('v1', 'Service');
      const servicePort = must(service.spec?.ports?.[0], 'Service port');
      expect(containerPort(must(servicePort.targetPort, 'Service targetPort'))).toBe(http.containerPort);
      expect(deployment.spec?.template.metadata?.annotations?.['prometheus.io/port']).toBe(String(http.containerPort));
    });

    it("liveness, readiness and start-up probe the app's health routes", () => {
      const live = routeOf(HealthController.prototype.live);
      const ready = routeOf(HealthController.prototype.ready);
      expect([live, ready]).toEqual(['/health/live', '/health/ready']);

      const path = (probe: IProbe | undefined, which: string) => must(probe?.httpGet, `${which} httpGet`).path;
      expect(path(container.livenessProbe, 'livenessProbe')).toBe(live);
      expect(path(container.readinessProbe, 'readinessProbe')).toBe(ready);
      // The start-up probe gates liveness, so it asks the same question: does the process answer.
      expect(path(container.startupProbe, 'startupProbe')).toBe(live);
      // Readiness pings Redis and gives up after 1 s; the probe must wait longer than that, so a slow
      // Redis reads as 503 (not ready) rather than as a probe timeout.
      expect(container.readinessProbe?.timeoutSeconds ?? 1).toBeGreaterThanOrEqual(2);
    });

    it('the grace period outlasts SHUTDOWN_DELAY_MS + SHUTDOWN_DRAIN_MS, and the drain outlasts a write', () => {
      const { shutdownDelayMs, shutdownDrainMs } = appConfig().http;
      const grace = must(podSpec.terminationGracePeriodSeconds, 'terminationGracePeriodSeconds');
      expect(shutdownDelayMs).toBeGreaterThan(0);
      expect(grace * 1000).toBeGreaterThan(shutdownDelayMs + shutdownDrainMs);
      // A checkout write started just before SIGTERM has 1.5 x UPSTREAM_DEADLINE_MS; it may finish.
      expect(shutdownDrainMs).toBeGreaterThanOrEqual(1.5 * appConfig().guesty.callDeadlineMs);
      // No preStop hook that would eat the grace period before the app sees SIGTERM.
      expect(container.lifecycle?.preStop).toBeUndefined();
    });

    it('no credential in any file: no Secret with data, the Secret variables only by secretKeyRef', () => {
      for (const manifest of manifests.filter((candidate) => candidate.doc.kind === 'Secret')) {
        expect({ file: manifest.file, data: manifest.doc.data, stringData: manifest.doc.stringData }).toEqual({
          file: manifest.file,
          data: undefined,
          stringData: undefined,
        });
      }
      for (const name of SECRET_VARIABLES) {
        expect(Object.keys(data)).not.toContain(name);
        const entries = env.filter((entry) => entry.name === name);
        expect(entries).toHaveLength(1);
        expect(entries[0].value).toBeUndefined();
        expect(entries[0].valueFrom?.secretKeyRef?.key).toBe(name);
      }
      const secretNames = new Set(env.map((entry) => entry.valueFrom?.secretKeyRef?.name).filter(Boolean));
      expect([...secretNames]).toEqual(['booking-checkout-credentials']);
      // Only the admin key and the webhook secret may be absent (then /admin, /webhooks/guesty answer 404).
      const optional = env.filter((entry) => entry.valueFrom?.secretKeyRef?.optional).map((entry) => entry.name);
      expect(optional).toEqual(['ADMIN_API_KEY', 'GUESTY_WEBHOOK_SECRET']);
      // No other literal env value carries an application variable (those belong in the ConfigMap).
      const known = envExampleVariables();
      expect(env.filter((entry) => entry.value !== undefined && known.has(entry.name)).map((entry) => entry.name)).toEqual([]);
    });

    it("runs non-root (the image's node user, uid 1000) on a read-only root filesystem, no privileges", () => {
      const pod = must(podSpec.securityContext, 'pod securityContext');
      const own = must(container.securityContext, 'container securityContext');
      expect(pod.runAsNonRoot).toBe(true);
      expect(own.runAsUser ?? pod.runAsUser).toBe(1000);
      expect(own.runAsNonRoot ?? pod.runAsNonRoot).toBe(true);
      expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
      expect(own.readOnlyRootFilesystem).toBe(true);
      expect(own.allowPrivilegeEscalation).toBe(false);
      expect(own.privileged ?? false).toBe(false);
      expect(own.capabilities?.drop).toEqual(['ALL']);
      expect(own.capabilities?.add ?? []).toEqual([]);
      expect((own.seccompProfile ?? pod.seccompProfile)?.type).toBe('RuntimeDefault');
      expect(podSpec.hostNetwork ?? false).toBe(false);
      expect(podSpec.hostPID ?? false).toBe(false);
      expect(podSpec.automountServiceAccountToken).toBe(false);

      const tmp = must(
        container.volumeMounts?.find((mount) => mount.mountPath === '/tmp'),
        '/tmp mount',
      );
      const volume = must(
        podSpec.volumes?.find((candidate) => candidate.name === tmp.name),
        'the /tmp volume',
      );
      expect(volume.emptyDir).toBeDefined();
      expect((podSpec.volumes ?? []).filter((candidate) => candidate.hostPath !== undefined)).toEqual([]);

      const account = only<IServiceAccount>('v1', 'ServiceAccount');
      expect(podSpec.serviceAccountName).toBe(account.metadata?.name);
      expect(account.automountServiceAccountToken).toBe(false);
    });

    it('requests and limits CPU and memory, sized for a ~150 MB process with the heap capped below the limit', () => {
      const { requests, limits } = must(container.resources, 'resources');
      const memoryRequest = bytes(must(requests?.memory, 'memory request'));
      const memoryLimit = bytes(must(limits?.memory, 'memory limit'));
      expect(memoryRequest).toBeGreaterThanOrEqual(150 * 2 ** 20);
      expect(memoryLimit).toBeGreaterThanOrEqual(memoryRequest);
      // Above the benchmark's 200 MB RSS goal, with room for the heap cap plus code and buffers.
      expect(memoryLimit).toBeGreaterThanOrEqual(256 * 2 ** 20);
      expect(memoryLimit).toBeLessThanOrEqual(1024 * 2 ** 20);
      expect(millicores(must(requests?.cpu, 'cpu request'))).toBeGreaterThan(0);
      expect(millicores(must(limits?.cpu, 'cpu limit'))).toBeGreaterThanOrEqual(millicores(must(requests?.cpu, 'cpu request')));

      const nodeOptions = must(env.find((entry) => entry.name === 'NODE_OPTIONS')?.value, 'NODE_OPTIONS');
      const heapMb = Number(must(/--max-old-space-size=(\d+)/.exec(nodeOptions), 'heap cap')[1]);
      expect(heapMb * 2 ** 20).toBeLessThan(memoryLimit);
    });

    it('3 replicas, a rollout that never goes below them, spread across nodes', () => {
      const spec = must(deployment.spec, 'Deployment spec');
      expect(spec.replicas).toBe(3);
      expect(spec.strategy?.type).toBe('RollingUpdate');
      expect(spec.strategy?.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
      expect(matches(spec.selector.matchLabels, podLabels)).toBe(true);

      const byNode = (podSpec.topologySpreadConstraints ?? []).find((constraint) => constraint.topologyKey === 'kubernetes.io/hostname');
      const antiAffinity = podSpec.affinity?.podAntiAffinity;
      expect(byNode !== undefined || antiAffinity !== undefined).toBe(true);
      if (byNode) {
        expect(byNode.maxSkew).toBe(1);
        expect(matches(byNode.labelSelector?.matchLabels, podLabels)).toBe(true);
      }
    });

    it('the Service, PodDisruptionBudget, autoscaler and NetworkPolicy select these pods', () => {
      const service = only<IService>('v1', 'Service');
      expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
      expect(service.spec?.ports?.map((port) => [port.name, port.port, port.targetPort])).toEqual([['http', 80, 'http']]);
      expect(matches(service.spec?.selector, podLabels)).toBe(true);

      const budget = only<IPodDisruptionBudget>('policy/v1', 'PodDisruptionBudget');
      expect(matches(budget.spec?.selector?.matchLabels, podLabels)).toBe(true);
      const { minAvailable, maxUnavailable } = must(budget.spec, 'PodDisruptionBudget spec');
      expect(minAvailable === 2 || maxUnavailable === 1).toBe(true);

      const autoscaler = only<IHorizontalPodAutoscaler>('autoscaling/v2', 'HorizontalPodAutoscaler');
      const scaling = must(autoscaler.spec, 'HorizontalPodAutoscaler spec');
      expect(scaling.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata?.name });
      expect(scaling.minReplicas).toBe(3);
      expect(scaling.maxReplicas).toBeGreaterThan(3);
      expect(scaling.metrics?.map((metric) => [metric.type, metric.resource?.name])).toEqual([['Resource', 'cpu']]);
      // The HPA's comment must keep telling operators that replicas add no upstream capacity.
      expect(readFileSync(join(MANIFEST_DIR, 'horizontalpodautoscaler.yaml'), 'utf8')).toMatch(/upstream budget is shared/i);
    });

    it('the NetworkPolicy allows only ingress to the app port, and egress to DNS, Redis and HTTPS', () => {
      const policy = only<INetworkPolicy>('networking.k8s.io/v1', 'NetworkPolicy');
      const spec = must(policy.spec, 'NetworkPolicy spec');
      expect(matches(spec.podSelector.matchLabels, podLabels)).toBe(true);
      expect([...(spec.policyTypes ?? [])].sort()).toEqual(['Egress', 'Ingress']);

      const port = appConfig().http.port;
      const ingress = must(spec.ingress, 'ingress rules');
      for (const rule of ingress) {
        // Every rule names its sources and the app's port: nothing open to all, nothing else open.
        expect(rule.from?.length ?? 0).toBeGreaterThan(0);
        expect(rule.ports?.map((entry) => [entry.protocol ?? 'TCP', containerPort(must(entry.port, 'ingress port'))])).toEqual([
          ['TCP', port],
        ]);
      }

      const egress = must(spec.egress, 'egress rules');
      const allowed = new Set<string>();
      for (const rule of egress) {
        expect(rule.ports?.length ?? 0).toBeGreaterThan(0);
        for (const entry of rule.ports ?? []) allowed.add(`${entry.protocol ?? 'TCP'}/${String(entry.port)}`);
      }
      expect([...allowed].sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/6379', 'TCP/6380', 'UDP/53'].sort());
    });
  });
});
