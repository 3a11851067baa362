#!/usr/bin/env python3
"""fpgacnn-serve's deployment files (issue 14, item 6) checked without a cluster or a container engine:
packaging/kubernetes/ (container file, kustomize base and overlays, KServe runtime, autoscaler adapter
rule) and the systemd unit packaging/fpgacnn-serve.service.in with its defaults, against

  - packaging/kubernetes/server-interface.json, what they assume of fpgacnn-serve (flags, default
    ports, routes, metric, drain time, uid);
  - the server itself: the metric names of apps/serve/repository_core.cpp, and, when the binary is
    built, the flags of `fpgacnn-serve --help` (skipped with a message until then);
  - Kubernetes' rules that `kubectl apply` would enforce only on a cluster: kinds and apiVersions,
    selectors matching labels, port names, probe ports, hostPath mounts, privileged vs
    allowPrivilegeEscalation, extended resources.

The overlays are rendered as kustomize would (resources, then strategic-merge patches by kind and
name, lists of containers, volumes, mounts and ports merged by their keys), so each variant (base,
alveo, kria) is checked as it would be applied. Nothing here runs docker, kubectl or KServe.
Usage: manifests_test.py --source-dir DIR [--server-binary PATH]
"""
import argparse
import copy
import json
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml
except ImportError:  # python3-yaml: scripts/install-deps.sh --with-tests
    print("SKIP: no PyYAML (python3-yaml) for this python3")
    sys.exit(77)

# apiVersion of every kind the files may hold (the stable or served versions KServe >= 0.11 and
# Kubernetes >= 1.23 accept).
KNOWN_KINDS = {
    "Deployment": "apps/v1",
    "Service": "v1",
    "PersistentVolumeClaim": "v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "ServingRuntime": "serving.kserve.io/v1alpha1",
    "InferenceService": "serving.kserve.io/v1beta1",
    "Kustomization": "kustomize.config.k8s.io/v1beta1",
}
# YAML files that are not Kubernetes objects (Helm values).
NOT_OBJECTS = {"autoscaling/prometheus-adapter-values.yaml"}
# Strategic merge keys of the lists the patches touch (Kubernetes' patchMergeKey).
MERGE_KEYS = {"containers": "name", "initContainers": "name", "volumes": "name", "volumeMounts": "mountPath",
              "ports": "containerPort", "env": "name"}
DNS_1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
VARIANTS = ("base", "overlays/alveo", "overlays/kria")


class Checker:
    def __init__(self, source_dir):
        self.source = source_dir
        self.k8s = os.path.join(source_dir, "packaging", "kubernetes")
        self.failures = []
        self.checks = 0
        with open(os.path.join(self.k8s, "server-interface.json"), encoding="utf-8") as f:
            self.interface = json.load(f)
        self.flags = set(self.interface["flags"])
        self.routes = set(self.interface["routes"].values())
        self.http_port = self.interface["defaults"]["http_port"]
        self.grpc_port = self.interface["defaults"]["grpc_port"]
        self.used_flags = set()

    def expect(self, condition, message):
        self.checks += 1
        if not condition:
            self.failures.append(message)
        return condition

    # ---- the server's own sources ----
    def metric_families(self):
        """{name: type} of every family RepositoryCore::metrics_text writes (family(text, NAME, TYPE, ...))."""
        path = os.path.join(self.source, self.interface["metrics"]["source"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        families = dict(re.findall(r'family\(\s*text,\s*"([a-z_:][a-z0-9_:]*)",\s*"(\w+)"', text))
        self.expect(families, f"{path}: no metric family found (family(text, \"name\", \"type\", ...))")
        return families, text

    # ---- files ----
    def yaml_files(self):
        found = []
        for root, _, files in os.walk(self.k8s):
            for name in files:
                if name.endswith((".yaml", ".yml")):
                    found.append(os.path.relpath(os.path.join(root, name), self.k8s))
        return sorted(found)

    def load(self, relative):
        with open(os.path.join(self.k8s, relative), encoding="utf-8") as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]

    def check_every_yaml(self):
        objects = []
        for relative in self.yaml_files():
            try:
                documents = self.load(relative)
            except yaml.YAMLError as error:
                self.expect(False, f"{relative}: not valid YAML: {error}")
                continue
            self.expect(documents, f"{relative}: empty")
            if relative in NOT_OBJECTS:
                continue
            for doc in documents:
                kind, api = doc.get("kind"), doc.get("apiVersion")
                where = f"{relative}: {kind} {doc.get('metadata', {}).get('name', '')}"
                if not self.expect(kind in KNOWN_KINDS, f"{relative}: unexpected kind {kind!r}"):
                    continue
                self.expect(api == KNOWN_KINDS[kind], f"{where}: apiVersion {api!r}, expected {KNOWN_KINDS[kind]!r}")
                if kind != "Kustomization":
                    name = doc.get("metadata", {}).get("name", "")
                    self.expect(bool(DNS_1123.match(name)) and len(name) <= 63,
                                f"{where}: metadata.name {name!r} is not a DNS-1123 label")
                objects.append((relative, doc))
        return objects

    # ---- kustomize, as far as these files use it ----
    def merge(self, base, patch, key=None):
        if isinstance(base, dict) and isinstance(patch, dict):
            out = dict(base)
            for k, v in patch.items():
                out[k] = self.merge(base[k], v, k) if k in base else copy.deepcopy(v)
            return out
        if isinstance(base, list) and isinstance(patch, list) and key in MERGE_KEYS:
            merge_key = MERGE_KEYS[key]
            out = [copy.deepcopy(item) for item in base]
            for item in patch:
                match = [i for i, b in enumerate(out) if b.get(merge_key) == item.get(merge_key)]
                if match:
                    out[match[0]] = self.merge(out[match[0]], item)
                else:
                    out.append(copy.deepcopy(item))
            return out
        return copy.deepcopy(patch)

    def render(self, folder):
        """The objects `kubectl kustomize folder` makes (resources and strategic-merge patches only)."""
        path = os.path.join(self.k8s, folder)
        documents = self.load(os.path.join(folder, "kustomization.yaml"))
        self.expect(len(documents) == 1, f"{folder}/kustomization.yaml: one document expected")
        kustomization = documents[0]
        unsupported = set(kustomization) - {"apiVersion", "kind", "resources", "patches"}
        self.expect(not unsupported, f"{folder}/kustomization.yaml: fields this test does not render: {unsupported}")
        objects = []
        for resource in kustomization.get("resources", []):
            target = os.path.normpath(os.path.join(path, resource))
            if not self.expect(os.path.exists(target), f"{folder}/kustomization.yaml: resource {resource} missing"):
                continue
            if os.path.isdir(target):
                objects += self.render(os.path.relpath(target, self.k8s))
            else:
                objects += self.load(os.path.relpath(target, self.k8s))
        for patch in kustomization.get("patches", []):
            patch_file = os.path.join(folder, patch.get("path", ""))
            if not self.expect(os.path.isfile(os.path.join(self.k8s, patch_file)),
                               f"{folder}/kustomization.yaml: patch {patch_file} missing"):
                continue
            for p in self.load(patch_file):
                ident = (p.get("kind"), p.get("metadata", {}).get("name"))
                hits = [i for i, o in enumerate(objects) if (o.get("kind"), o["metadata"].get("name")) == ident]
                if self.expect(len(hits) == 1, f"{patch_file}: patches {ident}, which {folder} does not hold once"):
                    objects[hits[0]] = self.merge(objects[hits[0]], p)
        return objects

    # ---- arguments ----
    def check_args(self, where, args):
        """Every token is a known flag followed by its value (or --flag=value); returns {flag: value}."""
        values = {}
        i = 0
        while i < len(args):
            token = str(args[i])
            if not self.expect(token.startswith("--"), f"{where}: argument {token!r} is not a flag"):
                i += 1
                continue
            flag, value = (token.split("=", 1) + [None])[:2]
            if value is None:
                has_value = i + 1 < len(args) and not str(args[i + 1]).startswith("--")
                if self.expect(has_value, f"{where}: {flag} has no value"):
                    value = str(args[i + 1])
                    i += 1
            i += 1
            self.expect(flag in self.flags, f"{where}: {flag} is not a flag of fpgacnn-serve (server-interface.json)")
            self.expect(flag not in values, f"{where}: {flag} given twice")
            self.used_flags.add(flag)
            values[flag] = value
        return values

    def check_server_args(self, where, values, repository, expect_all_interfaces=True):
        if expect_all_interfaces:
            self.expect(values.get("--bind") == "0.0.0.0",
                        f"{where}: --bind 0.0.0.0 missing (fpgacnn-serve binds 127.0.0.1 by default: "
                        f"unreachable from outside the container)")
        self.expect(values.get("--model-repository") == repository,
                    f"{where}: --model-repository {values.get('--model-repository')!r}, expected {repository!r}")
        for flag in ("--http-port", "--grpc-port", "--max-queue", "--max-body-bytes"):
            if flag in values:
                self.expect(str(values[flag]).isdigit(), f"{where}: {flag} {values[flag]!r} is not a number")
        if "--fallback" in values:
            self.expect(values["--fallback"] == "cpu",
                        f"{where}: --fallback {values['--fallback']!r}, only cpu exists")
        self.expect(("--tls-cert" in values) == ("--tls-key" in values),
                    f"{where}: --tls-cert and --tls-key go together")

    # ---- containers ----
    def container_ports(self, where, container, values, single_port_name=None):
        ports = {p.get("name"): p for p in container.get("ports", [])}
        numbers = [p.get("containerPort") for p in container.get("ports", [])]
        self.expect(len(set(numbers)) == len(numbers), f"{where}: a containerPort declared twice")
        http = int(values.get("--http-port", self.http_port))
        grpc = int(values.get("--grpc-port", self.grpc_port))
        self.expect(http == self.http_port and grpc == self.grpc_port,
                    f"{where}: ports {http}/{grpc} differ from fpgacnn-serve's defaults "
                    f"{self.http_port}/{self.grpc_port} "
                    f"(the image's EXPOSE and the docs assume the defaults)")
        if single_port_name:  # Knative: one port, named http1 or h2c
            self.expect(list(ports) == [single_port_name] and numbers == [http],
                        f"{where}: Knative routes one port: expected only {single_port_name} = {http}, got {ports}")
        else:
            self.expect(ports.get("http", {}).get("containerPort") == http,
                        f"{where}: port 'http' is not containerPort {http}")
            self.expect(ports.get("grpc", {}).get("containerPort") == grpc,
                        f"{where}: port 'grpc' is not containerPort {grpc}")
        for p in container.get("ports", []):
            self.expect(p.get("protocol", "TCP") == "TCP", f"{where}: port {p.get('name')} is not TCP")
        return ports, http

    def check_probes(self, where, container, ports, http, required):
        for probe_name, route in required.items():
            probe = container.get(probe_name)
            if not self.expect(probe is not None, f"{where}: no {probe_name}"):
                continue
            get = probe.get("httpGet")
            if not self.expect(get is not None, f"{where}: {probe_name} is not an httpGet probe"):
                continue
            path = get.get("path")
            self.expect(path in self.routes, f"{where}: {probe_name} path {path!r} is not a route of fpgacnn-serve")
            self.expect(path == route, f"{where}: {probe_name} path {path!r}, expected {route}")
            self.expect(path in self.interface["unauthenticated_routes"],
                        f"{where}: {probe_name} path {path!r} needs the bearer token once --auth-token-file is set")
            port = get.get("port")
            number = ports.get(port, {}).get("containerPort") if isinstance(port, str) else port
            self.expect(number == http, f"{where}: {probe_name} port {port!r} is not the REST port {http}")
            self.expect(get.get("scheme", "HTTP") == "HTTP" or "--tls-cert" in container.get("args", []),
                        f"{where}: {probe_name} scheme {get.get('scheme')}")

    def check_mounts(self, where, pod_spec, container):
        volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
        for mount in container.get("volumeMounts", []):
            self.expect(mount["name"] in volumes, f"{where}: volumeMount {mount['name']} has no volume")
        mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
        self.expect(len(mounts) == len(container.get("volumeMounts", [])), f"{where}: a mountPath used twice")
        return volumes, mounts

    # ---- the Deployment variants ----
    def check_variant(self, variant, families):
        objects = self.render(variant)
        by_kind = {}
        for o in objects:
            by_kind.setdefault(o["kind"], []).append(o)
        deployments = by_kind.get("Deployment", [])
        if not self.expect(len(deployments) == 1, f"{variant}: one Deployment expected, got {len(deployments)}"):
            return
        deployment = deployments[0]
        where = f"{variant}: Deployment {deployment['metadata']['name']}"
        spec = deployment["spec"]
        template_labels = spec["template"]["metadata"].get("labels", {})
        selector = spec["selector"].get("matchLabels", {})
        self.expect(selector and all(template_labels.get(k) == v for k, v in selector.items()),
                    f"{where}: selector {selector} does not match the pod labels {template_labels}")
        pod = spec["template"]["spec"]
        containers = pod.get("containers", [])
        if not self.expect(len(containers) == 1, f"{where}: one container expected"):
            return
        container = containers[0]
        self.expect(container.get("command") == [self.interface["binary"]],
                    f"{where}: command {container.get('command')}, expected [{self.interface['binary']}]")
        values = self.check_args(where, container.get("args", []))
        repository = self.interface["container_model_repository"]
        self.check_server_args(where, values, repository)
        ports, http = self.container_ports(where, container, values)
        self.check_probes(where, container, ports, http,
                          {"livenessProbe": self.interface["routes"]["live"],
                           "readinessProbe": self.interface["routes"]["ready"]})
        volumes, mounts = self.check_mounts(where, pod, container)
        self.expect(repository in mounts and mounts[repository].get("readOnly") is True,
                    f"{where}: the model repository {repository} is not mounted read-only")
        resources = container.get("resources", {})
        self.expect("cpu" in resources.get("requests", {}) and "memory" in resources.get("requests", {})
                    and "memory" in resources.get("limits", {}),
                    f"{where}: cpu / memory requests and a memory limit expected, got {resources}")

        # Draining: SIGTERM after preStop; the grace period covers both plus the drain.
        grace = pod.get("terminationGracePeriodSeconds", 30)
        pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
        sleep = int(pre_stop[-1]) if pre_stop and pre_stop[0].endswith("sleep") else 0
        drain = self.interface["sigterm"]["drain_seconds_at_most"]
        self.expect(grace > sleep + drain,
                    f"{where}: terminationGracePeriodSeconds {grace} <= preStop {sleep} s + drain {drain} s")

        # Pods' metric annotations point at the real metrics route and port.
        annotations = spec["template"]["metadata"].get("annotations", {})
        self.expect(annotations.get("prometheus.io/path") == self.interface["routes"]["metrics"]
                    and annotations.get("prometheus.io/port") == str(http),
                    f"{where}: prometheus.io annotations {annotations} are not /metrics on {http}")

        security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
        privileged = security.get("privileged", False)
        if privileged:
            self.expect(security.get("allowPrivilegeEscalation", True) is True,
                        f"{where}: privileged with allowPrivilegeEscalation false (the API server rejects it)")
        else:
            uid = self.interface["container_uid"]
            self.expect(security.get("runAsNonRoot") is True and security.get("runAsUser") == uid,
                        f"{where}: an unprivileged pod should run as the image's uid {uid}")
            self.expect(security.get("allowPrivilegeEscalation") is False,
                        f"{where}: allowPrivilegeEscalation not false")
            self.expect(security.get("readOnlyRootFilesystem") is True, f"{where}: root file system writable")
            self.expect("ALL" in security.get("capabilities", {}).get("drop", []),
                        f"{where}: capabilities not dropped")
        if security.get("readOnlyRootFilesystem"):
            self.expect("/tmp" in mounts, f"{where}: read-only root file system without a /tmp volume")

        limits = resources.get("limits", {})
        fpga = [k for k in limits if k.startswith("xilinx.com/")]
        if variant.endswith("alveo"):
            self.expect(len(fpga) == 1 and re.match(r"^xilinx\.com/fpga-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+$", fpga[0]),
                        f"{where}: expected one xilinx.com/fpga-<shell>-<timestamp> limit, got {fpga}")
            for key in fpga:
                self.expect(isinstance(limits[key], int) and limits[key] >= 1, f"{where}: {key} is not a card count")
                requested = resources.get("requests", {}).get(key, limits[key])
                self.expect(requested == limits[key], f"{where}: {key} request differs from its limit")
            self.expect(spec.get("strategy", {}).get("rollingUpdate", {}).get("maxSurge") == 0,
                        f"{where}: maxSurge must be 0 (a new pod needs the card its predecessor holds)")
        else:
            self.expect(not fpga, f"{where}: an FPGA resource outside the alveo overlay")
        if variant.endswith("kria"):
            self.expect(pod.get("nodeSelector", {}).get("kubernetes.io/arch") == "arm64", f"{where}: not arm64-only")
            self.expect(privileged, f"{where}: UIO needs a privileged container (device cgroup, sysfs writes)")
            self.expect(spec.get("strategy", {}).get("type") == "Recreate",
                        f"{where}: two pods cannot share the board's IP: strategy Recreate")
            devices = {}
            for path, mount in mounts.items():
                host = volumes.get(mount["name"], {}).get("hostPath")
                if host:
                    self.expect(host.get("path") == path and host.get("type") == "CharDevice",
                                f"{where}: {path} is not the host's character device {host.get('path')}")
                    devices[path] = host
            for pattern in (r"^/dev/uio\d+$", r"^/dev/udmabuf\d+$"):
                self.expect(any(re.match(pattern, p) for p in devices), f"{where}: no device node matching {pattern}")
        else:
            self.expect(not privileged, f"{where}: privileged outside the kria overlay")
            self.expect(not any("hostPath" in v for v in volumes.values()), f"{where}: hostPath volume")

        self.check_service(variant, by_kind, deployment, ports)
        self.check_pvc(variant, by_kind, volumes)
        self.check_hpa(variant, by_kind, deployment, values, families)

    def check_service(self, variant, by_kind, deployment, ports):
        services = by_kind.get("Service", [])
        if not self.expect(len(services) == 1, f"{variant}: one Service expected"):
            return
        service = services[0]
        where = f"{variant}: Service {service['metadata']['name']}"
        labels = deployment["spec"]["template"]["metadata"].get("labels", {})
        selector = service["spec"].get("selector", {})
        self.expect(selector and all(labels.get(k) == v for k, v in selector.items()),
                    f"{where}: selector {selector} selects no pod of the Deployment (labels {labels})")
        names = {}
        for port in service["spec"].get("ports", []):
            names[port["name"]] = port
            target = port.get("targetPort", port["port"])
            number = ports.get(target, {}).get("containerPort") if isinstance(target, str) else target
            self.expect(number is not None and number in [p["containerPort"] for p in ports.values()],
                        f"{where}: port {port['name']} targets {target!r}, not a container port")
            self.expect(port["port"] == number, f"{where}: port {port['name']} {port['port']} != its target {number}")
        self.expect(set(names) == {"http", "grpc"}, f"{where}: ports {sorted(names)}, expected http and grpc")
        self.expect(names.get("grpc", {}).get("appProtocol") in ("kubernetes.io/h2c", "grpc"),
                    f"{where}: the grpc port does not declare HTTP/2 (appProtocol)")

    def check_pvc(self, variant, by_kind, volumes):
        claims = {c["metadata"]["name"] for c in by_kind.get("PersistentVolumeClaim", [])}
        for volume in volumes.values():
            claim = volume.get("persistentVolumeClaim", {}).get("claimName")
            if claim:
                self.expect(claim in claims, f"{variant}: volume {volume['name']} claims {claim}, not in the variant")

    def check_hpa(self, variant, by_kind, deployment, values, families):
        hpas = by_kind.get("HorizontalPodAutoscaler", [])
        if not self.expect(len(hpas) == 1, f"{variant}: one HorizontalPodAutoscaler expected"):
            return
        hpa = hpas[0]
        where = f"{variant}: HorizontalPodAutoscaler {hpa['metadata']['name']}"
        ref = hpa["spec"]["scaleTargetRef"]
        self.expect(ref == {"apiVersion": "apps/v1", "kind": "Deployment", "name": deployment["metadata"]["name"]},
                    f"{where}: scaleTargetRef {ref} is not the Deployment")
        self.expect(1 <= hpa["spec"].get("minReplicas", 1) <= hpa["spec"]["maxReplicas"],
                    f"{where}: minReplicas / maxReplicas out of order")
        metrics = hpa["spec"].get("metrics", [])
        gauge = self.interface["metrics"]["autoscaling_gauge"]
        pods = [m for m in metrics if m.get("type") == "Pods"]
        if not self.expect(len(pods) == 1, f"{where}: expected one Pods metric, got {metrics}"):
            return
        metric = pods[0]["pods"]
        name = metric["metric"]["name"]
        self.expect(name == gauge, f"{where}: metric {name!r}, expected {gauge!r}")
        self.expect(families.get(name) == "gauge",
                    f"{where}: {name!r} is not a gauge of fpgacnn-serve's /metrics (found: {families.get(name)})")
        target = metric["target"]
        self.expect(target.get("type") == "AverageValue", f"{where}: a Pods metric's target must be AverageValue")
        quantity = str(target.get("averageValue", "0"))  # a Kubernetes quantity: "8" or "500m"
        average = float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)
        max_queue = int(values.get("--max-queue", 0) or 0)
        self.expect(0 < average and (not max_queue or average < max_queue),
                    f"{where}: target {average} is not below --max-queue {max_queue} (requests are refused first)")

    # ---- KServe ----
    def check_kserve(self, objects, families):
        runtimes = [d for _, d in objects if d["kind"] == "ServingRuntime"]
        services = [d for _, d in objects if d["kind"] == "InferenceService"]
        if not (self.expect(len(runtimes) == 1, "one ServingRuntime expected")
                and self.expect(services, "an InferenceService expected")):
            return
        runtime = runtimes[0]
        where = f"ServingRuntime {runtime['metadata']['name']}"
        spec = runtime["spec"]
        protocols = spec.get("protocolVersions", [])
        self.expect("v2" in protocols, f"{where}: protocolVersions {protocols} lacks v2")
        self.expect(set(protocols) <= {"v2", "grpc-v2"}, f"{where}: a protocol fpgacnn-serve does not speak")
        formats = {f["name"] for f in spec.get("supportedModelFormats", [])}
        self.expect(self.interface["kserve_model_format"] in formats, f"{where}: model format {formats}")
        containers = spec.get("containers", [])
        if not self.expect(len(containers) == 1 and containers[0].get("name") == "kserve-container",
                           f"{where}: one container named kserve-container expected"):
            return
        container = containers[0]
        self.expect(container.get("command") == [self.interface["binary"]],
                    f"{where}: command {container.get('command')}")
        values = self.check_args(where, container.get("args", []))
        self.check_server_args(where, values, self.interface["kserve_model_repository"])
        ports, http = self.container_ports(where, container, values, single_port_name="http1")
        self.check_probes(where, container, ports, http, {"readinessProbe": self.interface["routes"]["ready"],
                                                          "livenessProbe": self.interface["routes"]["live"]})
        annotations = spec.get("annotations", {})
        self.expect(annotations.get("prometheus.kserve.io/path") == self.interface["routes"]["metrics"]
                    and annotations.get("prometheus.kserve.io/port") == str(http),
                    f"{where}: prometheus.kserve.io annotations {annotations}")
        security = container.get("securityContext", {})
        self.expect(security.get("runAsUser") == self.interface["container_uid"]
                    and security.get("runAsNonRoot") is True,
                    f"{where}: not the image's unprivileged uid")
        for isvc in services:
            w = f"InferenceService {isvc['metadata']['name']}"
            model = isvc["spec"]["predictor"].get("model", {})
            self.expect(model.get("runtime") == runtime["metadata"]["name"], f"{w}: runtime {model.get('runtime')!r}")
            self.expect(model.get("modelFormat", {}).get("name") in formats, f"{w}: modelFormat not the runtime's")
            self.expect(model.get("protocolVersion") in spec.get("protocolVersions", []), f"{w}: protocolVersion")
            self.expect(re.match(r"^(pvc|s3|gs|https?|hdfs|oci)://", str(model.get("storageUri", ""))),
                        f"{w}: storageUri {model.get('storageUri')!r} is not a URI KServe downloads")

    # ---- the autoscaler's adapter rule ----
    def check_adapter(self, families):
        where = "autoscaling/prometheus-adapter-values.yaml"
        values = self.load(where)[0]
        gauge = self.interface["metrics"]["autoscaling_gauge"]
        rules = values.get("rules", {}).get("custom", [])
        matching = [r for r in rules if r.get("name", {}).get("as") == gauge]
        if not self.expect(len(matching) == 1, f"{where}: no rule exposing {gauge}"):
            return
        rule = matching[0]
        series = re.match(r"^([a-z_:][a-z0-9_:]*)", rule["seriesQuery"])
        self.expect(series and series.group(1) in families and families[series.group(1)] == "gauge",
                    f"{where}: seriesQuery {rule['seriesQuery']!r} names no gauge of fpgacnn-serve")
        self.expect(re.match(rule["name"]["matches"], series.group(1) if series else ""),
                    f"{where}: name.matches does not match the series")
        overrides = rule.get("resources", {}).get("overrides", {})
        self.expect(overrides.get("pod", {}).get("resource") == "pod"
                    and overrides.get("namespace", {}).get("resource") == "namespace",
                    f"{where}: pod / namespace overrides missing (a Pods metric needs both)")
        self.expect("<<.Series>>" in rule.get("metricsQuery", "") and "<<.GroupBy>>" in rule["metricsQuery"],
                    f"{where}: metricsQuery lacks <<.Series>> / <<.GroupBy>>")

    # ---- the container file ----
    def check_dockerfile(self):
        where = "Dockerfile"
        with open(os.path.join(self.k8s, where), encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
        joined = []
        for line in lines:  # continuation lines
            if joined and joined[-1].endswith("\\"):
                joined[-1] = joined[-1][:-1] + " " + line
            else:
                joined.append(line)
        instructions = [((line.split(None, 1) + [""])[0].upper(), (line.split(None, 1) + [""])[1]) for line in joined]
        froms = [a for i, a in instructions if i == "FROM"]
        self.expect(len(froms) == 1 and re.match(r"^debian:bookworm(-slim)?$", froms[0]),
                    f"{where}: FROM {froms}, expected debian:bookworm")
        exposed = sorted(int(p.split("/")[0]) for i, a in instructions if i == "EXPOSE" for p in a.split())
        self.expect(exposed == sorted([self.http_port, self.grpc_port]),
                    f"{where}: EXPOSE {exposed}, expected {self.http_port} {self.grpc_port}")
        copies = " ".join(a for i, a in instructions if i == "COPY")
        for package in self.interface["debian_packages"]:
            self.expect(f"{package}_" in copies, f"{where}: does not copy {package}_*.deb")
        runs = " ".join(a for i, a in instructions if i == "RUN")
        self.expect(re.search(r"apt-get install [^&]*\./\*\.deb", runs), f"{where}: no apt-get install ./*.deb")
        users = [a for i, a in instructions if i == "USER"]
        self.expect(users and users[-1].split(":")[0] == str(self.interface["container_uid"]),
                    f"{where}: USER {users}, expected {self.interface['container_uid']} (the manifests' runAsUser)")
        entry = [a for i, a in instructions if i == "ENTRYPOINT"]
        if not self.expect(len(entry) == 1, f"{where}: one ENTRYPOINT expected"):
            return
        try:
            command = json.loads(entry[0])
        except json.JSONDecodeError:
            self.expect(False, f"{where}: ENTRYPOINT is not in exec (JSON) form: SIGTERM would reach a shell")
            return
        self.expect(command[0] == self.interface["binary"], f"{where}: ENTRYPOINT runs {command[0]}")
        values = self.check_args(where, command[1:])
        self.check_server_args(where, values, self.interface["container_model_repository"])

    # ---- the systemd unit and its defaults ----
    def check_unit(self):
        unit = os.path.join(self.source, "packaging", "fpgacnn-serve.service.in")
        with open(unit, encoding="utf-8") as f:
            text = f.read()
        exec_start = re.search(r"^ExecStart=(\S+)\s+\$FPGACNN_SERVE_ARGS$", text, re.M)
        expected = "@prefix@/@bindir@/" + os.path.basename(self.interface["binary"])
        self.expect(exec_start and exec_start.group(1) == expected,
                    "fpgacnn-serve.service.in: ExecStart is not @prefix@/@bindir@/fpgacnn-serve $FPGACNN_SERVE_ARGS")
        environment = re.search(r"^EnvironmentFile=(\S+)$", text, re.M)
        self.expect(environment and environment.group(1) == "/etc/default/fpgacnn-serve",
                    "fpgacnn-serve.service.in: EnvironmentFile is not /etc/default/fpgacnn-serve")
        stop = re.search(r"^TimeoutStopSec=(\d+)$", text, re.M)
        drain = self.interface["sigterm"]["drain_seconds_at_most"]
        self.expect(stop and int(stop.group(1)) > drain,
                    f"fpgacnn-serve.service.in: TimeoutStopSec not above {drain}")
        with open(os.path.join(self.source, "packaging", "fpgacnn-serve.default"), encoding="utf-8") as f:
            defaults = f.read()
        args = re.search(r'^FPGACNN_SERVE_ARGS="([^"]*)"$', defaults, re.M)
        if self.expect(args, "fpgacnn-serve.default: no FPGACNN_SERVE_ARGS=\"...\""):
            values = self.check_args("fpgacnn-serve.default", shlex.split(args.group(1)))
            self.expect("--model-repository" in values, "fpgacnn-serve.default: no --model-repository")
            self.check_server_args("fpgacnn-serve.default", values, values.get("--model-repository"),
                                   expect_all_interfaces=False)
        conffiles = os.path.join(self.source, "packaging", "debian", "fpgacnn-tools", "conffiles")
        with open(conffiles, encoding="utf-8") as f:
            self.expect("/etc/default/fpgacnn-serve" in f.read().split(),
                        "fpgacnn-tools/conffiles lacks the defaults")

    # ---- the docs name every file ----
    def check_docs(self):
        # docs/serving-deployment.md, or its successor, a "Deploying" part of docs/tools/fpgacnn-serve.md.
        docs = [os.path.join(self.source, "docs", name)
                for name in ("serving-deployment.md", "tools/fpgacnn-serve.md")]
        text = ""
        for path in docs:
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    text += f.read()
        self.expect(text, "neither docs/serving-deployment.md nor docs/tools/fpgacnn-serve.md exists")
        for root, _, files in os.walk(self.k8s):
            for name in files:
                relative = os.path.relpath(os.path.join(root, name), self.k8s)
                self.expect(f"packaging/kubernetes/{relative}" in text,
                            f"the deployment docs do not mention packaging/kubernetes/{relative}")

    # ---- the built server ----
    def check_help(self, binary):
        if not binary or not os.path.isfile(binary):
            print(f"note: fpgacnn-serve is not built ({binary or 'no --server-binary'}): the flags were checked "
                  f"against server-interface.json only, not against `fpgacnn-serve --help`")
            return
        try:
            result = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            self.expect(False, f"{binary} --help: {error}")
            return
        self.expect(result.returncode == 0, f"{binary} --help exited {result.returncode}: {result.stderr.strip()}")
        offered = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", result.stdout + result.stderr))
        missing = sorted((self.used_flags | self.flags) - offered)
        for flag in missing:
            self.expect(False, f"`fpgacnn-serve --help` does not list {flag} (used by the manifests or "
                               f"listed in server-interface.json)")
        cmake = os.path.join(self.source, "apps", "serve", "CMakeLists.txt")
        with open(cmake, encoding="utf-8") as f:
            self.expect(re.search(r"install\(TARGETS\s+fpgacnn-serve\b[^)]*COMPONENT\s+tools", f.read()),
                        "apps/serve/CMakeLists.txt does not install fpgacnn-serve in component tools "
                        "(package fpgacnn-tools, which the image installs)")
        if not missing:
            print(f"fpgacnn-serve --help lists all {len(self.used_flags | self.flags)} flags the files use or assume")

    def run(self, binary):
        families, _ = self.metric_families()
        gauge = self.interface["metrics"]["autoscaling_gauge"]
        self.expect(families.get(gauge) == "gauge",
                    f"{gauge} is not a gauge in {self.interface['metrics']['source']}")
        objects = self.check_every_yaml()
        for variant in VARIANTS:
            self.check_variant(variant, families)
        self.check_kserve(objects, families)
        self.check_adapter(families)
        self.check_dockerfile()
        self.check_unit()
        self.check_docs()
        self.check_help(binary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--server-binary", default="")
    options = parser.parse_args()
    checker = Checker(os.path.abspath(options.source_dir))
    checker.run(options.server_binary)
    for failure in checker.failures:
        print(f"FAIL: {failure}")
    print(f"{checker.checks} checks, {len(checker.failures)} failed")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
