package auth

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/jsonpos"
)

// DefaultAccount is the account of identities that name none, and of
// every request when any credentials are accepted.
const DefaultAccount = "000000000000"

// MaxKeysFile caps the size of a credentials file.
const MaxKeysFile = 4 << 20

// Identity is who signed a request: an access key and the principal it
// belongs to.
type Identity struct {
	AccessKey string
	Secret    string
	// Token, when set, is the session token the key must be sent with
	// (X-Amz-Security-Token).
	Token   string
	Account string
	// ARN is the principal's ARN (aws:PrincipalArn): a user,
	// arn:aws:iam::ACCOUNT:user/NAME, unless the file gives another.
	ARN string
	// Name is the user name (aws:username), empty for other principals.
	Name string
	// Tags are the principal's tags (aws:PrincipalTag/KEY).
	Tags map[string]string
	// Verified is true when the signature was checked with the secret.
	Verified bool
}

// Anonymous is the identity of a request when any credentials are
// accepted: the access key it was signed with, as a user of the default
// account, with no tags.
func Anonymous(accessKey string) *Identity {
	return &Identity{AccessKey: accessKey, Account: DefaultAccount, Name: accessKey,
		ARN: "arn:aws:iam::" + DefaultAccount + ":user/" + accessKey}
}

// Keys are the access keys a server accepts, by access key ID.
type Keys struct {
	byID map[string]*Identity
	list []*Identity

	mu      sync.RWMutex
	signing map[signingScope]*signingKeys
}

type signingScope struct{ key, day, region, service string }

// keyFile is the credentials file's JSON.
type keyFile struct {
	Keys []keyEntry `json:"keys"`
}

type keyEntry struct {
	AccessKeyID     string            `json:"accessKeyId"`
	SecretAccessKey string            `json:"secretAccessKey"`
	SessionToken    string            `json:"sessionToken"`
	Account         string            `json:"account"`
	User            string            `json:"user"`
	ARN             string            `json:"arn"`
	Tags            map[string]string `json:"tags"`
}

var (
	accountRE   = regexp.MustCompile(`^[0-9]{12}$`)
	accessKeyRE = regexp.MustCompile(`^[A-Za-z0-9_.+=@-]{3,128}$`)
	userRE      = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,64}$`)
	arnRE       = regexp.MustCompile(`^arn:aws[a-z-]*:(iam|sts)::[0-9]{12}:[A-Za-z0-9_+=,.@/-]{1,512}$`)
	tagKeyRE    = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$`)
)

// LoadKeys reads a credentials file (see ParseKeys), at most MaxKeysFile
// bytes.
func LoadKeys(path string) (*Keys, error) {
	data, err := files.ReadCapped(path, MaxKeysFile, "a credentials file")
	if err != nil {
		return nil, err
	}
	return ParseKeys(path, data)
}

// ParseKeys reads the access keys of a credentials file called name:
//
//	{"keys": [
//	  {"accessKeyId": "AKIAT042EXAMPLE", "secretAccessKey": "...",
//	   "account": "111122223333", "user": "api-t042",
//	   "tags": {"tenantId": "t042"}}
//	]}
//
// accessKeyId and secretAccessKey are required; account defaults to
// 000000000000; the principal is the IAM user "user" (default: the access
// key ID) unless "arn" names another (a role session,
// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION); sessionToken, when
// set, must come with every request signed by the key. Unknown members
// are errors, so that a misspelt one is not silently ignored.
func ParseKeys(name string, data []byte) (*Keys, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f keyFile
	if err := dec.Decode(&f); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			off := dec.InputOffset()
			if i := bytes.LastIndex(data[:off], []byte(field)); i >= 0 {
				off = int64(i)
			}
			return nil, fmt.Errorf("%s:%s: unknown member %s (want accessKeyId, secretAccessKey, sessionToken, account, user, arn, tags)",
				name, posAt(data, off), field)
		}
		return nil, jsonpos.Wrap(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%s: more than one JSON document", name, posAt(data, dec.InputOffset()))
	}
	if len(f.Keys) == 0 {
		return nil, fmt.Errorf("%s: no keys: want {\"keys\": [{\"accessKeyId\": ..., \"secretAccessKey\": ...}]}", name)
	}
	k := &Keys{byID: map[string]*Identity{}, signing: map[signingScope]*signingKeys{}}
	var errs []string
	at := keyOffsets(data)
	bad := func(i int, format string, args ...any) {
		pos := ""
		if i < len(at) {
			pos = ":" + posAt(data, at[i])
		}
		errs = append(errs, fmt.Sprintf("%s%s: keys[%d]: ", name, pos, i)+fmt.Sprintf(format, args...))
	}
	for i, e := range f.Keys {
		switch {
		case e.AccessKeyID == "":
			bad(i, "accessKeyId is required")
			continue
		case !accessKeyRE.MatchString(e.AccessKeyID):
			bad(i, "accessKeyId %q: want 3 to 128 letters, digits or _.+=@-", e.AccessKeyID)
			continue
		case k.byID[e.AccessKeyID] != nil:
			bad(i, "accessKeyId %q is listed twice", e.AccessKeyID)
			continue
		}
		if e.SecretAccessKey == "" {
			bad(i, "secretAccessKey is required")
		}
		// A key's identity is only ever handed out by Verify.
		id := &Identity{AccessKey: e.AccessKeyID, Secret: e.SecretAccessKey, Token: e.SessionToken, Account: e.Account, Tags: e.Tags, Verified: true}
		if id.Account == "" {
			id.Account = DefaultAccount
		} else if !accountRE.MatchString(id.Account) {
			bad(i, "account %q: want 12 digits", id.Account)
		}
		switch {
		case e.ARN != "" && e.User != "":
			bad(i, "give user or arn, not both")
		case e.ARN != "":
			if !arnRE.MatchString(e.ARN) {
				bad(i, "arn %q: want arn:aws:iam::ACCOUNT:user/NAME, ...:role/NAME or arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION", e.ARN)
			} else if acct := strings.Split(e.ARN, ":")[4]; e.Account != "" && acct != id.Account {
				bad(i, "arn %q is in account %s, not %s", e.ARN, acct, id.Account)
			} else {
				id.Account = acct
			}
			id.ARN = e.ARN
			if res := strings.SplitN(e.ARN, ":", 6); len(res) == 6 && strings.HasPrefix(res[5], "user/") {
				id.Name = res[5][strings.LastIndexByte(res[5], '/')+1:]
			}
		default:
			id.Name = e.User
			if id.Name == "" {
				id.Name = e.AccessKeyID
			}
			if !userRE.MatchString(id.Name) {
				bad(i, "user %q: want 1 to 64 letters, digits or _+=,.@-", id.Name)
			}
			id.ARN = "arn:aws:iam::" + id.Account + ":user/" + id.Name
		}
		for _, tk := range sortedTags(e.Tags) {
			if !tagKeyRE.MatchString(tk) {
				bad(i, "tag key %q: want 1 to 128 letters, digits, spaces or _.:/=+-@", tk)
			}
			if len(e.Tags[tk]) > 256 {
				bad(i, "tag %q: value longer than 256 characters", tk)
			}
		}
		k.byID[id.AccessKey] = id
		k.list = append(k.list, id)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return k, nil
}

// keyOffsets returns where each entry of the file's "keys" array starts
// (its opening brace), so that an entry's error names its line and
// column; nil when the walk fails (the errors then name the entry only).
func keyOffsets(data []byte) []int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "keys" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var out []int64
		for dec.More() {
			off := dec.InputOffset()
			for off < int64(len(data)) && (data[off] == ',' || data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
				off++
			}
			out = append(out, off)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return out
			}
		}
		return out
	}
	return nil
}

func posAt(data []byte, off int64) string {
	l, c := jsonpos.Position(data, off)
	return fmt.Sprintf("%d:%d", l, c)
}

func sortedTags(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Identities lists the keys' identities in file order.
func (k *Keys) Identities() []*Identity { return k.list }

// Lookup finds an identity by access key ID.
func (k *Keys) Lookup(accessKey string) (*Identity, bool) {
	id, ok := k.byID[accessKey]
	return id, ok
}

// Verify checks a request's signature, parsed by Parse, against the keys:
// the credential scope and the date (within MaxSkew of now), the key, the
// signature recomputed from the signed headers, the path, the query and
// body, and the session token. It returns the identity that signed.
func (k *Keys) Verify(r *http.Request, body []byte, s *Signature, now time.Time) (*Identity, *Error) {
	if err := s.checkScope(now); err != nil {
		return nil, err
	}
	id, ok := k.byID[s.AccessKey]
	if !ok {
		return nil, fail(ErrUnrecognized, unrecognizedMessage)
	}
	var want, got [32]byte
	s.signature(r, body, k.signingKey(id, s), &want)
	if !decodeHex(got[:], s.Signature) || !hmac.Equal(got[:], want[:]) {
		creq, toSign := s.canonical(r, body)
		return nil, fail(ErrInvalidSignature, signatureMismatchMsg+"\n\nThe Canonical String for this request should have been\n'"+
			creq+"'\n\nThe String-to-Sign should have been\n'"+toSign+"'\n")
	}
	token := headerValue(r.Header, "X-Amz-Security-Token")
	if s.query {
		token = r.URL.Query().Get("X-Amz-Security-Token")
	}
	if token != id.Token {
		return nil, fail(ErrUnrecognized, strings.TrimSuffix(unrecognizedMessage, "."))
	}
	return id, nil
}

// signingKey derives, or recalls, the signing key of one identity, day,
// region and service.
func (k *Keys) signingKey(id *Identity, s *Signature) *signingKeys {
	sc := signingScope{id.AccessKey, s.Date, s.Region, s.Service}
	k.mu.RLock()
	key, ok := k.signing[sc]
	k.mu.RUnlock()
	if ok {
		return key
	}
	key = newSigningKeys(signingKey(id.Secret, s.Date, s.Region, s.Service))
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.signing) >= 4096 {
		clear(k.signing)
	}
	k.signing[sc] = key
	return key
}

// decodeHex decodes exactly len(dst) bytes of hex, without allocating.
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	val := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		case 'A' <= c && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	for i := range dst {
		hi, ok1 := val(s[2*i])
		lo, ok2 := val(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}
