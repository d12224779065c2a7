// Package pricelisttest serves recorded AWS Price List responses on
// loopback, as the Pricing API answers GetProducts, for the tests of the
// code that reads them through the real SDK client.
package pricelisttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Server serves the recorded GetProducts responses of a directory (one
// file a region, getproducts-REGION.json, in the format AWS documents):
// awsJson1_1, signed for the Pricing API in us-east-1, the region picked
// by the regionCode filter, paged by MaxResults and NextToken. A region
// without a file has no products.
type Server struct {
	*httptest.Server
	// Requests counts the requests answered.
	Requests atomic.Int32
	// Fail is how many requests to answer with a server error first.
	Fail atomic.Int32
}

// Serve starts a server on dir and points the AWS configuration chain of
// the test at static credentials, away from the machine's own files.
func Serve(t testing.TB, dir string) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		fail := func(code int, typ, msg string) {
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
		}
		if r.Header.Get("X-Amz-Target") != "AWSPriceListService.GetProducts" {
			fail(http.StatusBadRequest, "InvalidParameterException", "unexpected target "+r.Header.Get("X-Amz-Target"))
			return
		}
		if !strings.Contains(r.Header.Get("Authorization"), "/us-east-1/pricing/aws4_request") {
			fail(http.StatusForbidden, "AccessDeniedException", "not signed for the Pricing API in us-east-1")
			return
		}
		if s.Fail.Load() > 0 {
			s.Fail.Add(-1)
			fail(http.StatusInternalServerError, "InternalErrorException", "try again")
			return
		}
		var in struct {
			ServiceCode, FormatVersion, NextToken string
			MaxResults                            int
			Filters                               []struct{ Type, Field, Value string }
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(body, &in); err != nil || in.ServiceCode != "AmazonDynamoDB" || in.FormatVersion != "aws_v1" {
			fail(http.StatusBadRequest, "InvalidParameterException", "bad request")
			return
		}
		region := ""
		for _, f := range in.Filters {
			if f.Field == "regionCode" && f.Type == "TERM_MATCH" {
				region = f.Value
			}
		}
		var rec struct{ PriceList []string }
		if data, err := os.ReadFile(filepath.Join(dir, "getproducts-"+filepath.Base(region)+".json")); err == nil {
			if err := json.Unmarshal(data, &rec); err != nil {
				fail(http.StatusInternalServerError, "InternalErrorException", err.Error())
				return
			}
		}
		from, _ := strconv.Atoi(in.NextToken)
		to := min(from+max(in.MaxResults, 1), len(rec.PriceList))
		out := map[string]any{"FormatVersion": "aws_v1", "PriceList": rec.PriceList[min(from, to):to]}
		if to < len(rec.PriceList) {
			out["NextToken"] = strconv.Itoa(to)
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	home := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":             filepath.Join(home, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "credentials"),
		"AWS_ACCESS_KEY_ID":           "AKIDTEST",
		"AWS_SECRET_ACCESS_KEY":       "secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "",
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	return s
}
