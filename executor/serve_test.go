package executor_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

// startServe builds cardapio and runs `cardapio serve` on a loopback
// port, returning its URL; the server is stopped when the test ends.
func startServe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cardapio")
	build := exec.Command("go", "build", "-o", bin, "../cmd/cardapio")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	re := regexp.MustCompile(`listening on (http://\S+)`)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(60 * time.Second):
		t.Fatal("cardapio serve did not say where it listens")
	}
	return ""
}

// runOn seeds and runs one variant on fresh tables of a target.
func runOn(t *testing.T, tg *endpoint.Target, m *catalog.Model, keys catalog.KeyMode, ov [2]string) *executor.Result {
	t.Helper()
	ctx := context.Background()
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Keys: keys})
	require.NoError(t, err)
	defer func() { require.NoError(t, ts.Delete(ctx)) }()
	x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Keys: ts.Keys, Loader: tg})
	in := executor.Input{Operation: ov[0], Variant: ov[1]}
	s, err := x.Seed(ctx, in)
	require.NoError(t, err)
	in.Before = s.Before
	r, err := x.Run(ctx, in)
	require.NoError(t, err)
	return r
}

// TestServe runs every operation and variant against cardapio serve over
// loopback: the same outcomes and figures as in process, measured
// throughout (the refused writes' charges read from the engine's
// header over the wire too).
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts cardapio serve")
	}
	m := load(t, "../model.yaml")
	url := startServe(t)
	ctx := context.Background()
	// No retries: every response must arrive whole (target copies request
	// bodies so the SDK cannot close one under net/http's writer, which
	// cut off about 1 large Query response in 300 here).
	remote, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: url, Retry: endpoint.NoRetry})
	require.NoError(t, err)
	for _, ov := range variants(m) {
		t.Run(ov[0]+"/"+ov[1], func(t *testing.T) {
			want := nativeRun(t, m, ov)
			got := runOn(t, remote, m, catalog.KeysAuto, ov)
			assert.Equal(t, want.Outcome.Kind, got.Outcome.Kind, "%+v", got.Outcome)
			assert.Equal(t, strings.Join(figures(want.Capacity), "\n"), strings.Join(figures(got.Capacity), "\n"))
			assert.False(t, got.Capacity.Computed, "measured over the wire")
			assert.False(t, got.Capacity.Missing)
		})
	}
}
