package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset/output"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/loadgen"
)

// k8sJob is what the test reads of a Job of the manifest.
type k8sJob struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						SubPath   string `yaml:"subPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// readJobs reads the Jobs of the Kubernetes manifest, by name.
func readJobs(t *testing.T) map[string]k8sJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs/deploy/k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]k8sJob{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var j k8sJob
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if j.Kind == "Job" {
			jobs[j.Metadata.Name] = j
		}
	}
	return jobs
}

// batchCommand is the AWS Batch job definition's command.
func batchCommand(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs/deploy/aws-batch-job.json"))
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		ContainerProperties struct {
			Command []string `json:"command"`
		} `json:"containerProperties"`
	}
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	return def.ContainerProperties.Command
}

// local turns a manifest's command into one run here: the model and the
// scenario the test's, the tables of a local engine instead of AWS, a
// small scale, results in dir. The rest (--existing, --part auto/N,
// --results ...{part}...) is the manifest's own.
func local(t *testing.T, args []string, url, dir, mountPath string) []string {
	t.Helper()
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasSuffix(a, "model.yaml"):
			out = append(out, filepath.Join(root, "examples/orders/model.yaml"))
		case a == "--scenario":
			out = append(out, a, "month-end-lookups")
			i++
		case a == "--scale":
			out = append(out, a, "0.004", "--population", "0.0004", "--seed", "5", "--speed", "max")
			i++
		case a == "--aws":
			out = append(out, "--endpoint-url", url)
		case a == "--region":
			i++
		case strings.HasPrefix(a, mountPath):
			out = append(out, filepath.Join(dir, strings.TrimPrefix(a, mountPath)))
		default:
			out = append(out, a)
		}
	}
	return out
}

// serveOrders writes the orders example's population into a local
// engine, as an S3 import would, and serves it.
func serveOrders(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(engine.New(engine.Options{}).Handler())
	t.Cleanup(s.Close)
	m, err := catalog.Load(filepath.Join(root, "examples/orders/model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := output.Execute(context.Background(), m, output.Config{Scale: 0.0004, Seed: 5, AsOf: "2026-09-24", EndpointURL: s.URL, CreateTables: true, Keys: "native"}); err != nil {
		t.Fatal(err)
	}
	return s.URL
}

func cardapio(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "cardapio"), args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("cardapio %s: %v\n%s", strings.Join(args, " "), err, tail(out.String()))
	}
}

func readSummary(t *testing.T, path string) *loadgen.Summary {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := loadgen.ReadSummary(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The shipped Kubernetes Indexed Job and AWS Batch array job, run here:
// the parts of the manifest's command as local processes of the real
// CLI, each given its index the way the scheduler gives it
// (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX), against a served
// engine holding the population, then the manifest's merge. The merged
// run ends as one run of the whole: the same subjects, messages,
// duplicates and outcomes, the invariants holding, and histograms that
// count every arrival of the parts, merged exactly (the parts' own
// histograms added).
func TestDeployParts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load parts")
	}
	jobs := readJobs(t)
	parts, ok := jobs["cardapio-load"]
	merge, ok2 := jobs["cardapio-merge"]
	if !ok || !ok2 {
		t.Fatalf("the manifest's jobs are %v; want cardapio-load and cardapio-merge", jobs)
	}
	if parts.Spec.CompletionMode != "Indexed" || parts.Spec.Completions < 2 {
		t.Fatalf("cardapio-load: completion mode %q, %d completions; want an Indexed Job of parts", parts.Spec.CompletionMode, parts.Spec.Completions)
	}
	n := parts.Spec.Completions
	pc := parts.Spec.Template.Spec.Containers[0]
	if got := strings.Join(pc.Args, " "); !strings.Contains(got, "--part auto/") || !strings.Contains(got, "--existing") {
		t.Fatalf("the parts' args %q: want --existing and --part auto/N", got)
	}
	var partsDir string // the parts' results directory, as the merge pod sees it
	for _, vm := range pc.VolumeMounts {
		if vm.Name == "results" {
			partsDir = filepath.Join(vm.MountPath, vm.SubPath)
		}
	}

	t.Run("kubernetes", func(t *testing.T) {
		dir := t.TempDir()
		url := serveOrders(t)
		_ = os.MkdirAll(filepath.Join(dir, "parts"), 0o755)
		for i := range n {
			// The part's volume is the shared one's parts/ directory.
			cardapio(t, []string{loadgen.EnvK8sIndex + "=" + itoa(i)}, local(t, pc.Args, url, filepath.Join(dir, "parts"), "/results")...)
		}
		mc := merge.Spec.Template.Spec.Containers[0]
		cardapio(t, nil, local(t, mc.Args, url, dir, "/results")...)
		if filepath.Join(dir, "parts") != filepath.Join(dir, strings.TrimPrefix(partsDir, "/results")) {
			t.Errorf("the parts write to %s, the merge reads /results/parts", partsDir)
		}
		compareWhole(t, dir, filepath.Join(dir, "payday.jsonl"), n)
		mergedExactly(t, readSummary(t, filepath.Join(dir, "payday.jsonl")), filepath.Join(dir, "parts"))
	})

	t.Run("aws-batch", func(t *testing.T) {
		cmd := batchCommand(t)
		if got := strings.Join(cmd, " "); !strings.Contains(got, "--part auto/") {
			t.Fatalf("the Batch command %q: want --part auto/N", got)
		}
		var bn int
		for i, a := range cmd {
			if a == "--part" {
				bn = atoi(t, strings.TrimPrefix(cmd[i+1], "auto/"))
			}
		}
		dir := t.TempDir()
		_ = os.MkdirAll(filepath.Join(dir, "parts"), 0o755)
		url := serveOrders(t)
		for i := range bn {
			cardapio(t, []string{loadgen.EnvBatchIndex + "=" + itoa(i)}, local(t, cmd, url, dir, "/mnt/cardapio")...)
		}
		cardapio(t, nil, "load", "merge", filepath.Join(dir, "parts"), "--results", filepath.Join(dir, "payday.jsonl"))
		compareWhole(t, dir, filepath.Join(dir, "payday.jsonl"), bn)
		mergedExactly(t, readSummary(t, filepath.Join(dir, "payday.jsonl")), filepath.Join(dir, "parts"))
	})
}

// compareWhole runs the whole scenario once, on a population of its own,
// and compares the merged results with it.
func compareWhole(t *testing.T, dir, merged string, n int) {
	t.Helper()
	got := readSummary(t, merged)
	url := serveOrders(t)
	whole := filepath.Join(dir, "whole.jsonl")
	cardapio(t, nil, "load", filepath.Join(root, "examples/orders/model.yaml"), "--scenario", "month-end-lookups", "--scale", "0.004", "--population", "0.0004",
		"--seed", "5", "--speed", "max", "--existing", "--endpoint-url", url, "--results", whole, "--quiet")
	want := readSummary(t, whole)
	if d := cmp.Diff(want.Population.Subjects, got.Population.Subjects); d != "" {
		t.Errorf("the parts' subjects are not the whole run's (-whole +merged):\n%s", d)
	}
	for name, w := range want.Operations {
		g := got.Operations[name]
		if g == nil {
			t.Errorf("%s: not in the merged run", name)
			continue
		}
		// The messages sent, the provider's resent duplicates among
		// them, and what every one of them did.
		if g.Offered != w.Offered || g.Duplicates != w.Duplicates || !cmp.Equal(g.Outcomes, w.Outcomes) {
			t.Errorf("%s: merged %d messages (%d duplicates), outcomes %v; the whole run %d (%d), %v", name, g.Offered, g.Duplicates, g.Outcomes, w.Offered, w.Duplicates, w.Outcomes)
		}
		if gh := histCount(t, got.Histograms[name]); gh != g.Completed {
			t.Errorf("%s: the merged histogram counts %d latencies, the parts completed %d", name, gh, g.Completed)
		}
	}
	for i, v := range got.Invariants {
		if v.Violations != 0 || i >= len(want.Invariants) || want.Invariants[i].Violations != 0 || v.Name != want.Invariants[i].Name {
			t.Errorf("invariant %s: %d violations merged; the whole run's %+v", v.Name, v.Violations, want.Invariants)
		}
	}
	if len(got.Invariants) != len(want.Invariants) {
		t.Errorf("%d invariants merged, %d in the whole run", len(got.Invariants), len(want.Invariants))
	}
	if !got.OK || !want.OK {
		t.Errorf("merged ok %v, whole ok %v", got.OK, want.OK)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func decodeHist(t *testing.T, enc string) *hdr.Histogram {
	t.Helper()
	h, err := hdr.Decode([]byte(enc))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func histCount(t *testing.T, enc string) int64 {
	t.Helper()
	if enc == "" {
		return 0
	}
	return decodeHist(t, enc).TotalCount()
}

// mergedExactly holds the merged histograms to the parts' own, added:
// the same count and the same value at every percentile read.
func mergedExactly(t *testing.T, merged *loadgen.Summary, partsDir string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(partsDir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no part files in %s", partsDir)
	}
	sums := map[string]*hdr.Histogram{}
	for _, p := range paths {
		for name, enc := range readSummary(t, p).Histograms {
			h := decodeHist(t, enc)
			if sums[name] == nil {
				sums[name] = h
				continue
			}
			sums[name].Merge(h)
		}
	}
	for name, want := range sums {
		got := decodeHist(t, merged.Histograms[name])
		for _, q := range []float64{50, 90, 99, 99.9, 100} {
			if got.ValueAtPercentile(q) != want.ValueAtPercentile(q) || got.TotalCount() != want.TotalCount() {
				t.Errorf("%s: merged p%g %d (%d values), the parts' added %d (%d)", name, q, got.ValueAtPercentile(q), got.TotalCount(), want.ValueAtPercentile(q), want.TotalCount())
			}
		}
	}
}
