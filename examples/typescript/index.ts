// The dev stack's queue and job (stacks/Pulumi.dev.yaml) through raygang's TypeScript SDK,
// generated from the component provider's schema (see the README). Type-checked by the test
// tier with `tsc --noEmit`; the Node.js language host is not served here, so it is not run.
import * as raygang from "@pulumi/raygang";

const queue = new raygang.VolcanoQueue("rayBatch", {
    name: "ray-batch",
    spec: { weight: 1, reclaimable: true, capability: { cpu: "32", memory: "128Gi" } },
});

const resources = (cpu: string, memory: string) => ({
    requests: { cpu, memory },
    limits: { cpu, memory },
});

const job = new raygang.RayJobGang("demoJob", {
    // The queue this program creates: the job waits for it to be Open.
    queue: queue,
    accounting: "effective",
    nodeShapes: [{ name: "general-8x32", allocatable: { cpu: "8", memory: "32Gi" } }],
    manifest: {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        metadata: {
            name: "demo-job",
            namespace: "default",
            labels: { "volcano.sh/queue-name": "ray-batch" },
        },
        spec: {
            entrypoint: "python /home/ray/app/train.py --epochs 3",
            shutdownAfterJobFinishes: true,
            ttlSecondsAfterFinished: 600,
            submitterPodTemplate: {
                spec: {
                    restartPolicy: "Never",
                    containers: [{
                        name: "ray-job-submitter",
                        image: "rayproject/ray:2.52.0",
                        resources: {
                            requests: { cpu: "500m", memory: "512Mi" },
                            limits: { cpu: "1", memory: "1Gi" },
                        },
                    }],
                },
            },
            rayClusterSpec: {
                rayVersion: "2.52.0",
                enableInTreeAutoscaling: false,
                headGroupSpec: {
                    rayStartParams: {},
                    template: {
                        spec: {
                            containers: [{
                                name: "ray-head",
                                image: "rayproject/ray:2.52.0",
                                ports: [
                                    { containerPort: 6379, name: "gcs-server" },
                                    { containerPort: 8265, name: "dashboard" },
                                    { containerPort: 10001, name: "client" },
                                ],
                                resources: resources("1", "2Gi"),
                            }],
                        },
                    },
                },
                workerGroupSpecs: [{
                    groupName: "compute",
                    replicas: 2,
                    minReplicas: 2,
                    maxReplicas: 2,
                    rayStartParams: {},
                    template: {
                        spec: {
                            containers: [{
                                name: "ray-worker",
                                image: "rayproject/ray:2.52.0",
                                resources: resources("2", "4Gi"),
                            }],
                        },
                    },
                }],
            },
        },
    },
});

export const podGroupName: raygang.RayJobGang["podGroupName"] = job.podGroupName;
export const minMember = job.minMember;
export const minResources = job.minResources;
export const submissionId = job.submissionId;
export const dashboardUrl = job.dashboardUrl;
