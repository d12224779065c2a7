// Command nullserve is the null server of bench/latency.sh: it reads each
// HTTP/1.1 request whole (net/http's own request parser, the body read to
// its end) and answers a prepared response without looking at it: for
// GetItem an item of about 300 bytes like the benchmark's, for any other
// target an empty object. Nothing is stored. What a client measures
// against it is what the client, the loopback and the machine's
// scheduling alone cost a request: a floor under any server's latency
// with that client on that machine.
//
// Usage: nullserve -addr 127.0.0.1:4584
package main

import (
	"bufio"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4584", "loopback address to listen on")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("nullserve: -addr %q: a loopback address and port, e.g. 127.0.0.1:4584", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	get := response(`{"Item":{"pk":{"S":"user#0000012345"},"v":{"N":"1"},"pad":{"S":"` + strings.Repeat("x", 240) + `"}}}`)
	other := response(`{}`)
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, get, other)
	}
}

// response is a whole HTTP response with body b, prepared once.
func response(b string) []byte {
	return []byte("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: " +
		strconv.Itoa(len(b)) + "\r\n\r\n" + b)
}

// serve answers one connection's requests in order until it closes.
func serve(c net.Conn, get, other []byte) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 16<<10)
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, io.LimitReader(req.Body, 32<<20)); err != nil {
			return
		}
		req.Body.Close()
		out := other
		if strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".GetItem") {
			out = get
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}
