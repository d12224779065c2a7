package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/throughput"
)

// TestArchiveCommand runs cardapio archive against a served engine
// holding the reference model's tables: the TTL deletions of the hot
// table land in its history table, a second run with the checkpoint
// finds nothing more, and bad requests exit 2.
func TestArchiveCommand(t *testing.T) {
	clk := throughput.NewManualClock(time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC))
	eng := engine.New(engine.Options{Now: clk.Now})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: eng.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String()

	// The model's hot table (TTL, a stream with old images) and its
	// history table (keyed alike), whatever the model calls them.
	m, err := catalog.Load("../../model.yaml")
	require.NoError(t, err)
	var hot, history *catalog.Table
	for _, tb := range m.Tables {
		if tb.TTL != "" && tb.Stream != nil && tb.SortKey != "" {
			hot = tb
		}
	}
	require.NotNil(t, hot)
	for _, tb := range m.Tables {
		if tb != hot && tb.PartitionKey == hot.PartitionKey && tb.SortKey == hot.SortKey {
			history = tb
		}
	}
	require.NotNil(t, history)
	ctx := context.Background()
	tg := endpoint.InProcess(eng, "", endpoint.NoRetry)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "cmd-", OnDemand: true})
	require.NoError(t, err)
	from, to := ts.Name(hot.Name), ts.Name(history.Name)
	for i := 0; i < 5; i++ {
		exp := clk.Now().Add(time.Duration(i%2) * 48 * time.Hour).Add(time.Minute) // odd ones live on
		_, err := tg.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(from), Item: map[string]types.AttributeValue{
			hot.PartitionKey: &types.AttributeValueMemberS{Value: "p" + strconv.Itoa(i)}, hot.SortKey: &types.AttributeValueMemberS{Value: "s"},
			hot.TTL: &types.AttributeValueMemberN{Value: strconv.FormatInt(exp.Unix(), 10)}}})
		require.NoError(t, err)
	}
	clk.Advance(time.Hour)
	require.Equal(t, 3, eng.SweepExpired(clk.Now()))

	cp := filepath.Join(t.TempDir(), "archive.json")
	args := []string{"archive", "--endpoint-url", url, "--from", from, "--to", to, "--checkpoint", cp}
	var out, stderr bytes.Buffer
	require.Equal(t, ExitOK, Main(args, nil, &out, &stderr), stderr.String())
	assert.Contains(t, out.String(), "archived 3 items deleted by TTL from "+from+" into "+to)
	scan, err := tg.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(to)})
	require.NoError(t, err)
	assert.Equal(t, int32(3), scan.Count)
	out.Reset()
	require.Equal(t, ExitOK, Main(args, nil, &out, &stderr), stderr.String())
	assert.Contains(t, out.String(), "archived 0 items", "the checkpoint holds the position")

	for _, bad := range [][]string{
		{"archive", "--from", from, "--to", to},
		{"archive", "--endpoint-url", url, "--from", to, "--to", from},
		{"archive", "--endpoint-url", url, "--from", "cmd-nope", "--to", from},
		{"archive", "--endpoint-url", url, "--to", from},
	} {
		stderr.Reset()
		assert.Equal(t, ExitBadInput, Main(bad, nil, io.Discard, &stderr), "%v", bad)
		assert.NotEmpty(t, stderr.String())
	}
}
