package main

import (
	"bytes"
	"context"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/examples/lastro"
)

// TestDemo runs the demo against the engine served on a loopback port,
// as cardapio serve serves it.
func TestDemo(t *testing.T) {
	srv, err := engine.NewServer(engine.ServerOptions{})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	db := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://" + ln.Addr().String()),
		Credentials: credentials.NewStaticCredentialsProvider("demo", "demo", "")})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), db, lastro.DefaultTables().WithPrefix("demo-"), &out))
	assert.Contains(t, out.String(), "contract C-2026-004512 in shard 10")
	assert.Contains(t, out.String(), "ApplySettlement: 10 WRU")
	assert.Contains(t, out.String(), "duplicate webhook: already applied (duplicate webhook); acknowledge it (outcome: succeed)")
	assert.Contains(t, out.String(), "agenda: C-2026-004512 SMS_D15, 243950 cents outstanding")
	t.Log("\n" + out.String())
}
