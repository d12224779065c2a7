package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
)

// BenchmarkHandlerPut serves one 300-byte PutItem through the server's
// handler, without a socket, to show what each trust feature costs a
// request: any credentials accepted (the default), signatures verified
// (--credentials), and an IAM policy with a dynamodb:LeadingKeys
// condition on top (--policy).
func BenchmarkHandlerPut(b *testing.B) {
	body := `{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"sk":{"N":"1"},"name":{"S":"someone"},"n":{"N":"12345"},"pad":{"S":"` + strings.Repeat("p", 230) + `"}}}`
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	signed := http.Header{}
	{
		req, _ := http.NewRequest("POST", "http://127.0.0.1:8000/", strings.NewReader(body))
		req.Header.Set("Content-Type", jsonType)
		req.Header.Set("X-Amz-Target", targetPrefix+"PutItem")
		sum := sha256.Sum256([]byte(body))
		require.NoError(b, v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "SECRET"},
			req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at))
		signed = req.Header
	}
	keys, err := auth.ParseKeys("keys.json", []byte(`{"keys":[{"accessKeyId":"AKID","secretAccessKey":"SECRET"}]}`))
	require.NoError(b, err)
	pol, err := iam.Parse("p.json", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:PutItem","dynamodb:CreateTable"],
		"Resource":"arn:aws:dynamodb:*:*:table/Bench","Condition":{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["user#*"]}}}]}`))
	require.NoError(b, err)
	for _, v := range []struct {
		name string
		opts ServerOptions
	}{
		{"any-credentials", ServerOptions{LoopbackHosts: true}},
		{"verified", ServerOptions{LoopbackHosts: true, Keys: keys, Now: func() time.Time { return at }}},
		{"verified+policy", ServerOptions{LoopbackHosts: true, Keys: keys, Now: func() time.Time { return at },
			Policies: func(*auth.Identity) []*iam.Policy { return []*iam.Policy{pol} }}},
	} {
		b.Run(v.name, func(b *testing.B) {
			s, err := NewServer(v.opts)
			require.NoError(b, err)
			e, err := s.space("us-east-1", auth.DefaultAccount)
			require.NoError(b, err)
			benchTable(b, e, "Bench")
			b.ReportAllocs()
			b.ResetTimer()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", "/", strings.NewReader(body))
				req.Host = "127.0.0.1:8000"
				req.Header = signed
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Body.String())
				}
			}
			// CPU time, unlike wall time, leaves out the waits of a
			// machine shared with other work.
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkTrustSteps runs, on one signed 300-byte PutItem, exactly the
// steps ServeHTTP takes for the trust features as serve runs them by
// default (any credentials, IAM off): the loopback Host check, the
// signature's parse, the space of its region and account, and the ARN
// check of the decoded request; nothing else. Its CPU time per request
// against BenchmarkHandlerPut/any-credentials's (the whole request
// through the same handler) is the share of a request the trust
// features take, measured in one binary (bench/trust-overhead.sh).
func BenchmarkTrustSteps(b *testing.B) {
	body := `{"TableName":"Bench","Item":{"pk":{"S":"user#000000000001"},"sk":{"N":"1"},"name":{"S":"someone"},"n":{"N":"12345"},"pad":{"S":"` + strings.Repeat("p", 230) + `"}}}`
	s, err := NewServer(ServerOptions{LoopbackHosts: true})
	require.NoError(b, err)
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	req.Host = "127.0.0.1:8000"
	req.Header.Set("Content-Type", jsonType)
	req.Header.Set("X-Amz-Target", targetPrefix+"PutItem")
	placeholderSign(req)
	_, f, ok := operation(targetPrefix + "PutItem")
	require.True(b, ok)
	in, err := f.decode([]byte(body))
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < b.N; i++ {
		if s.opts.LoopbackHosts && !LoopbackHost(req.Host) {
			b.Fatal("host refused")
		}
		sig, aerr := auth.Parse(req.Header, req.URL.RawQuery)
		if aerr != nil {
			b.Fatal(aerr)
		}
		c := &call{sig: sig}
		e, err := s.space(sig.Region, c.account())
		if err != nil {
			b.Fatal(err)
		}
		c.e = e
		if !s.shared() {
			if err := c.checkARNs(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/float64(b.N), "cpu-ns/op")
}
