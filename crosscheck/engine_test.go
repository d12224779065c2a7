package crosscheck

import "errors"

// startEngine starts the embedded engine on a loopback port and returns its
// endpoint.
func startEngine() (string, error) {
	return "", errors.New("the engine has no HTTP handler yet; set ENGINE_ENDPOINT")
}
