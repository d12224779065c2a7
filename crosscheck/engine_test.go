package crosscheck

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/cardapio/cardapio/engine"
)

// startEngine serves a fresh in-process engine on a loopback port for the
// rest of the test binary's life and returns its endpoint.
func startEngine() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen for the engine: %w", err)
	}
	srv := &http.Server{Handler: engine.New(engine.Options{}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}
