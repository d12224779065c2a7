package budget

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
)

// BenchmarkGate runs the gate on the reference model against the embedded
// engine: every operation and variant, as cardapio budget does.
func BenchmarkGate(b *testing.B) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := Run(context.Background(), m, "model.yaml", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			b.Fatal("gate failed")
		}
	}
}

// BenchmarkGateLoopback runs the gate against the embedded engine's HTTP
// server on a loopback port of this process (what cardapio serve runs),
// through --endpoint-url's path: the SDK over TCP, ordinary writes. The
// client's and the server's work share the process's CPU profile.
func BenchmarkGateLoopback(b *testing.B) {
	m, err := catalog.Load("../model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: engine.New(engine.Options{}).Handler()}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	for b.Loop() {
		rep, err := Run(context.Background(), m, "model.yaml", Options{Target: endpoint.Options{EndpointURL: url}})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			b.Fatal("gate failed")
		}
	}
}
