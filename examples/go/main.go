// The dev stack's queue and job (stacks/Pulumi.dev.yaml) through raygang's Go SDK, generated
// from the component provider's schema (see the README). Built by the test tier with
// `go build`; the Go language host is not served here, so it is not run.
package main

import (
	"example.com/pulumi-raygang/sdk/go/raygang"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type object = map[string]interface{}
type list = []interface{}

func resources(cpu, memory string) object {
	amount := object{"cpu": cpu, "memory": memory}
	return object{"requests": amount, "limits": amount}
}

func container(name string, res object, extra object) object {
	c := object{"name": name, "image": "rayproject/ray:2.52.0", "resources": res}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		queue, err := raygang.NewVolcanoQueue(ctx, "rayBatch", &raygang.VolcanoQueueArgs{
			Name: "ray-batch",
			Spec: object{
				"weight":      1,
				"reclaimable": true,
				"capability":  object{"cpu": "32", "memory": "128Gi"},
			},
		})
		if err != nil {
			return err
		}
		accounting := "effective"
		job, err := raygang.NewRayJobGang(ctx, "demoJob", &raygang.RayJobGangArgs{
			// The queue this program creates: the job waits for it to be Open.
			Queue:      queue,
			Accounting: &accounting,
			NodeShapes: []map[string]interface{}{
				{"name": "general-8x32", "allocatable": object{"cpu": "8", "memory": "32Gi"}},
			},
			Manifest: object{
				"apiVersion": "ray.io/v1",
				"kind":       "RayJob",
				"metadata": object{
					"name":      "demo-job",
					"namespace": "default",
					"labels":    object{"volcano.sh/queue-name": "ray-batch"},
				},
				"spec": object{
					"entrypoint":               "python /home/ray/app/train.py --epochs 3",
					"shutdownAfterJobFinishes": true,
					"ttlSecondsAfterFinished":  600,
					"submitterPodTemplate": object{"spec": object{
						"restartPolicy": "Never",
						"containers": list{container("ray-job-submitter", object{
							"requests": object{"cpu": "500m", "memory": "512Mi"},
							"limits":   object{"cpu": "1", "memory": "1Gi"},
						}, nil)},
					}},
					"rayClusterSpec": object{
						"rayVersion":              "2.52.0",
						"enableInTreeAutoscaling": false,
						"headGroupSpec": object{
							"rayStartParams": object{},
							"template": object{"spec": object{"containers": list{
								container("ray-head", resources("1", "2Gi"), object{"ports": list{
									object{"containerPort": 6379, "name": "gcs-server"},
									object{"containerPort": 8265, "name": "dashboard"},
									object{"containerPort": 10001, "name": "client"},
								}}),
							}}},
						},
						"workerGroupSpecs": list{object{
							"groupName":      "compute",
							"replicas":       2,
							"minReplicas":    2,
							"maxReplicas":    2,
							"rayStartParams": object{},
							"template": object{"spec": object{"containers": list{
								container("ray-worker", resources("2", "4Gi"), nil),
							}}},
						}},
					},
				},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("podGroupName", job.PodGroupName)
		ctx.Export("minMember", job.MinMember)
		ctx.Export("minResources", job.MinResources)
		ctx.Export("submissionId", job.SubmissionId)
		ctx.Export("dashboardUrl", job.DashboardUrl)
		return nil
	})
}
