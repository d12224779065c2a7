package budget

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLoopback(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:8000": true, "http://localhost:8000": true, "http://[::1]:8000/": true, "http://127.0.0.2": true,
		"http://ddb.localhost:4566": true, "http://10.0.0.5:8000": false, "https://dynamodb.us-east-1.amazonaws.com": false,
		"http://localhost.example.com": false, "::bad": false,
	} {
		assert.Equal(t, want, loopback(url), url)
	}
}
