package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// strictJobs reads a manifest of Jobs into the Kubernetes API's own types
// (k8s.io/api), refusing any field the API does not have, as `kubectl apply
// --validate=strict` would: a misspelt key is an error here, not a field
// the cluster drops.
func strictJobs(manifest []byte) ([]batchv1.Job, error) {
	var jobs []batchv1.Job
	for i, doc := range bytes.Split(manifest, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		var job batchv1.Job
		if err := dec.Decode(&job); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if job.APIVersion != "batch/v1" || job.Kind != "Job" {
			return nil, fmt.Errorf("document %d is %s %s, want batch/v1 Job", i+1, job.APIVersion, job.Kind)
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
}

func stripComments(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

func envOf(c corev1.Container, name string) (corev1.EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return corev1.EnvVar{}, false
}

// The Indexed Job and its merge, checked against the Kubernetes API types
// and against what the shard scripts need.
func TestKubernetesManifestIsValidForTheAPI(t *testing.T) {
	b, err := os.ReadFile("k8s/bench-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := strictJobs(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d Jobs, want the shard Job and the merge Job", len(jobs))
	}
	shard, merge := jobs[0], jobs[1]
	s := shard.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil || *s.Parallelism > *s.Completions {
		t.Fatalf("shard Job spec: %+v", s)
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		t.Errorf("a Job's pods need restartPolicy Never or OnFailure, not %q", p)
	}
	c := s.Template.Spec.Containers[0]
	shards, ok := envOf(c, "SHARDS")
	if !ok || shards.Value != strconv.Itoa(int(*s.Completions)) {
		t.Errorf("SHARDS=%q, completions %d", shards.Value, *s.Completions)
	}
	for _, name := range []string{"SUITE", "OUT"} {
		if e, ok := envOf(c, name); !ok || e.Value == "" {
			t.Errorf("the shard container does not set %s", name)
		}
	}
	if key, ok := envOf(c, "OPENAI_API_KEY"); !ok || key.Value != "" || key.ValueFrom == nil || key.ValueFrom.SecretKeyRef == nil {
		t.Errorf("the key must come from a Secret, never a literal: %+v", key)
	}
	if c.Command[0] != "wright-shard" {
		t.Errorf("command %v", c.Command)
	}
	dockerfile, _ := os.ReadFile("../Dockerfile")
	if !strings.Contains(string(dockerfile), "COPY deploy/shard.sh /usr/local/bin/wright-shard") {
		t.Error("the image does not install wright-shard")
	}
	// Both Jobs mount the same claim at the path the shards write to.
	claim := func(j batchv1.Job) (string, string) {
		ps := j.Spec.Template.Spec
		for _, v := range ps.Volumes {
			if v.PersistentVolumeClaim != nil {
				for _, m := range ps.Containers[0].VolumeMounts {
					if m.Name == v.Name {
						return v.PersistentVolumeClaim.ClaimName, m.MountPath
					}
				}
			}
		}
		return "", ""
	}
	sc, sp := claim(shard)
	mc, mp := claim(merge)
	out, _ := envOf(c, "OUT")
	if sc == "" || sc != mc || sp != mp || !strings.HasPrefix(out.Value, sp) {
		t.Errorf("claims %s at %s and %s at %s; OUT %s", sc, sp, mc, mp, out.Value)
	}
	// Kubernetes starts the merge at once, beside the shards: it must wait
	// for a complete split itself, within a deadline.
	cmd := strings.Join(merge.Spec.Template.Spec.Containers[0].Command, " ")
	if !strings.Contains(cmd, "bench merge --complete") || !strings.Contains(cmd, "until ") || merge.Spec.ActiveDeadlineSeconds == nil {
		t.Errorf("the merge Job does not wait for complete shards within a deadline: %q", cmd)
	}
}

// The strict reading catches what a loose one drops: a misspelt field.
func TestStrictJobsRefusesUnknownFields(t *testing.T) {
	bad := []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionMode: Indexed\n  paralellism: 4\n  template: {spec: {containers: [{name: a, image: b}]}}\n")
	if _, err := strictJobs(bad); err == nil || !strings.Contains(err.Error(), "paralellism") {
		t.Errorf("a misspelt field: %v", err)
	}
	if _, err := strictJobs([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")); err == nil {
		t.Error("a Pod was taken for a Job")
	}
}
