/**
 * Nothing in the kind network may send to an address outside it (issue 17). These tests READ the
 * Docker network and the iptables rules test/kind/docker.sh put in place, and the registry
 * configuration baked into the node image; they never probe by sending traffic out.
 */
import { execa } from 'execa';
import { iptablesRules, kindNetwork, kindNodeImage, kindSubnet, ruleArg } from './support.js';

describe('the kind network stays on this machine', () => {
  test('the kind Docker network is the IPv4 subnet the egress rules name, and not --internal (published ports must work)', async () => {
    const { stdout } = await execa('docker', ['network', 'inspect', kindNetwork]);
    const [net] = JSON.parse(stdout) as {
      Internal: boolean;
      EnableIPv6: boolean;
      IPAM: { Config: { Subnet: string }[] };
    }[];
    expect(net!.IPAM.Config.map((c) => c.Subnet)).toEqual([kindSubnet]);
    expect(net!.EnableIPv6).toBe(false);
    expect(net!.Internal).toBe(false);
  });

  test('FORWARD sends everything through DOCKER-USER before any of Docker own ACCEPT rules', async () => {
    const forward = await iptablesRules('FORWARD');
    expect(forward[0]).toEqual(['-A', 'FORWARD', '-j', 'DOCKER-USER']);
  });

  test('DOCKER-USER drops what the kind subnet sends outside itself, and nothing before that lets it out', async () => {
    const rules = await iptablesRules('DOCKER-USER');
    const drop = rules.findIndex(
      (r) =>
        ruleArg(r, '-s')?.value === kindSubnet &&
        ruleArg(r, '-d')?.value === kindSubnet &&
        ruleArg(r, '-d')?.negated === true &&
        ruleArg(r, '-j')?.value === 'DROP',
    );
    expect(drop).toBeGreaterThanOrEqual(0);
    // Before the drop only the return path of connections already allowed may pass.
    const before = rules.slice(0, drop).filter((r) => ruleArg(r, '-j')?.value !== 'DROP');
    for (const r of before) {
      expect(r).toEqual(expect.arrayContaining(['--ctstate', 'RELATED,ESTABLISHED']));
    }
  });
});

describe("the node image's containerd pulls from nowhere outside", () => {
  let image = '';
  beforeAll(async () => {
    image = await kindNodeImage();
  }, 1_800_000);

  async function readInImage(path: string): Promise<string> {
    const { stdout } = await execa('docker', ['run', '--rm', '--entrypoint', 'cat', image, path]);
    return stdout;
  }

  test('every registry resolves to a closed loopback port (certs.d/_default), and containerd reads that folder', async () => {
    const config = await readInImage('/etc/containerd/config.toml');
    expect(config).toMatch(/config_path = "\/etc\/containerd\/certs.d"/);
    const hosts = await readInImage('/etc/containerd/certs.d/_default/hosts.toml');
    expect(hosts).toMatch(/^server = "http:\/\/127\.0\.0\.1:1"$/m);
    const hostSections = [...hosts.matchAll(/^\[host\."([^"]+)"\]/gm)].map((m) => m[1]);
    expect(hostSections).toEqual(['http://127.0.0.1:1']);
  });

  test('the images kubeadm and the sandbox need are preloaded (pinned) in the image', async () => {
    const { stdout } = await execa('docker', [
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      image,
      '-c',
      'containerd >/dev/null 2>&1 & for i in $(seq 1 100); do ctr version >/dev/null 2>&1 && break; sleep 0.2; done; ' +
        'ctr -n k8s.io images list',
    ]);
    const images = stdout.split('\n').filter((l) => l.startsWith('registry.k8s.io/'));
    for (const line of images) expect(line).toMatch(/\bio\.cri-containerd\.pinned=pinned\b/);
    const names = [...new Set(images.map((i) => i.replace(/[:@\s].*$/, '')))].sort();
    expect(names).toEqual(
      [
        'registry.k8s.io/etcd',
        'registry.k8s.io/kube-apiserver',
        'registry.k8s.io/kube-controller-manager',
        'registry.k8s.io/kube-proxy',
        'registry.k8s.io/kube-scheduler',
        'registry.k8s.io/pause',
      ].sort(),
    );
  }, 60_000);
});
