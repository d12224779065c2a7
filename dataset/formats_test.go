package dataset

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks below are written from the documents' public rules, apart
// from the generator's own validators, so that a generator and a
// validator wrong the same way would still fail.

func digitsOf(s string) []int {
	var ds []int
	for _, c := range s {
		if c >= '0' && c <= '9' {
			ds = append(ds, int(c-'0'))
		}
	}
	return ds
}

// cpfOK: two mod-11 check digits, weights 10..2 then 11..2; a CPF of one
// repeated digit is not issued.
func cpfOK(s string) bool {
	d := digitsOf(s)
	if len(d) != 11 {
		return false
	}
	same := true
	for _, x := range d {
		same = same && x == d[0]
	}
	if same {
		return false
	}
	for k := 9; k <= 10; k++ {
		sum := 0
		for i := 0; i < k; i++ {
			sum += d[i] * (k + 1 - i)
		}
		if sum*10%11%10 != d[k] {
			return false
		}
	}
	return true
}

// cnpjOK: two mod-11 check digits with weights 5..2,9..2 and 6..2,9..2.
func cnpjOK(s string) bool {
	d := digitsOf(s)
	if len(d) != 14 {
		return false
	}
	for k, w := range [][]int{{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}, {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}} {
		sum := 0
		for i, x := range w {
			sum += d[i] * x
		}
		dv := 11 - sum%11
		if dv >= 10 {
			dv = 0
		}
		if dv != d[12+k] {
			return false
		}
	}
	return true
}

// mod10OK is a boleto field's check digit: weights 2,1,... from the
// right, the digits of each product summed.
func mod10DV(ds []int) int {
	sum, w := 0, 2
	for i := len(ds) - 1; i >= 0; i-- {
		p := ds[i] * w
		sum += p/10 + p%10
		w = 3 - w
	}
	return (10 - sum%10) % 10
}

// boletoOK checks a 47-digit typeable line: three fields with mod-10
// check digits, and the general mod-11 check digit of the 44-digit bar
// code they rebuild (bank, currency, DV, due factor, amount, free field).
func boletoOK(s string) bool {
	d := digitsOf(s)
	if len(d) != 47 || len(s) != 47 {
		return false
	}
	if mod10DV(d[0:9]) != d[9] || mod10DV(d[10:20]) != d[20] || mod10DV(d[21:31]) != d[31] {
		return false
	}
	bar := append([]int{}, d[0:4]...) // bank, currency
	bar = append(bar, d[33:47]...)    // factor, amount
	bar = append(bar, d[4:9]...)      // free field
	bar = append(bar, d[10:20]...)
	bar = append(bar, d[21:31]...)
	sum, w := 0, 2
	for i := len(bar) - 1; i >= 0; i-- {
		sum += bar[i] * w
		w++
		if w > 9 {
			w = 2
		}
	}
	dv := 11 - sum%11
	if dv == 0 || dv >= 10 {
		dv = 1
	}
	return d[3] == 9 && dv == d[32]
}

func TestCheckDigitRules(t *testing.T) {
	// Published examples, and one digit off.
	assert.True(t, cpfOK("529.982.247-25"))
	assert.False(t, cpfOK("529.982.247-24"))
	assert.False(t, cpfOK("111.111.111-11"))
	assert.True(t, cnpjOK("11.222.333/0001-81"))
	assert.False(t, cnpjOK("11.222.333/0001-82"))
	r := newRNG(5)
	b := appendBoleto(nil, &r, time.Date(2026, 9, 24, 0, 0, 0, 0, time.UTC), 123456)
	require.True(t, boletoOK(string(b)), string(b))
	for _, i := range []int{5, 15, 25, 32, 40} {
		c := []byte(string(b))
		c[i] = '0' + (c[i]-'0'+1)%10
		assert.False(t, boletoOK(string(c)), "digit %d changed: %s", i, c)
		assert.False(t, ValidBoleto(string(c)), "digit %d changed: %s", i, c)
	}
	for _, s := range []string{"529.982.247-25", "52998224725", "111.444.777-35", "529.982.247-24"} {
		assert.Equal(t, cpfOK(s), ValidCPF(s), s)
	}
}

// TestFormats reads every realistic format back from the files of a
// model that carries one of each (testdata/formats.yaml), under pt_BR and
// under the default locale: CPFs (formatted and digits) and CNPJs with
// valid check digits and no CPF twice, Pix txids and end-to-end ids in
// the Central Bank's layouts, boletos' typeable lines with valid field
// and general check digits, Brazilian names, phones (area code, mobile
// 9), postal codes, states and addresses under pt_BR, gofakeit's English
// ones otherwise, e-mails and UUIDs.
func TestFormats(t *testing.T) {
	doc, err := os.ReadFile("testdata/formats.yaml")
	require.NoError(t, err)
	for _, locale := range []string{"pt_BR", "en_US"} {
		t.Run(locale, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "formats.yaml")
			require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(doc), "locale: pt_BR", "locale: "+locale, 1)), 0o644))
			p, err := New(loadModel(t, path), Options{Scale: 1, Seed: 12})
			require.NoError(t, err)
			items := outputItems(t, p)
			require.Len(t, items, 3000)
			rx := func(s string) *regexp.Regexp { return regexp.MustCompile(s) }
			shapes := map[string]*regexp.Regexp{
				"cpf":       rx(`^[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}$`),
				"cpfDigits": rx(`^[0-9]{11}$`),
				"cnpj":      rx(`^[0-9]{2}\.[0-9]{3}\.[0-9]{3}/[0-9]{4}-[0-9]{2}$`),
				"pixTxid":   rx(`^[A-Za-z0-9]{26,35}$`),
				"pixE2E":    rx(`^E[0-9]{8}[0-9]{12}[A-Za-z0-9]{11}$`),
				"boleto":    rx(`^[0-9]{47}$`),
				"email":     rx(`^[a-z0-9._-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$`),
				"uuid":      rx(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
			}
			if locale == "pt_BR" {
				shapes["name"] = rx(`^\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+$`)
				shapes["phone"] = rx(`^\([1-9][1-9]\) 9[0-9]{4}-[0-9]{4}$`)
				shapes["postalCode"] = rx(`^[0-9]{5}-[0-9]{3}$`)
				shapes["state"] = rx(`^(AC|AL|AP|AM|BA|CE|DF|ES|GO|MA|MT|MS|MG|PA|PB|PR|PE|PI|RJ|RN|RS|RO|RR|SC|SP|SE|TO)$`)
				shapes["address"] = rx(`^(Rua|Avenida|Travessa|Alameda|Praça|Estrada) .+, [0-9]+ - .+/[A-Z]{2} - [0-9]{5}-[0-9]{3}$`)
			}
			cpfs := map[string]map[string]bool{"cpf": {}, "cpfDigits": {}}
			accented, silva := 0, 0
			for _, it := range items {
				for a, re := range shapes {
					v := str(it.Item, a)
					require.Regexp(t, re, v, "%s under %s", a, locale)
				}
				for _, a := range []string{"cpf", "cpfDigits"} {
					v := str(it.Item, a)
					require.True(t, cpfOK(v), "%s %q has wrong check digits", a, v)
					require.False(t, cpfs[a][v], "%s %s twice", a, v)
					cpfs[a][v] = true
				}
				require.True(t, cnpjOK(str(it.Item, "cnpj")), "CNPJ %q", str(it.Item, "cnpj"))
				require.True(t, boletoOK(str(it.Item, "boleto")), "boleto %q", str(it.Item, "boleto"))
				at, err := time.Parse("200601021504", str(it.Item, "pixE2E")[9:21])
				require.NoError(t, err, "the instant of %s", str(it.Item, "pixE2E"))
				assert.False(t, at.After(p.AsOf), "a Pix E2E id after as-of")
				name := str(it.Item, "name")
				if strings.ContainsAny(name, "áâãéêíóôõúçÁÉÍÓÚ") {
					accented++
				}
				if strings.Contains(name, "Silva") {
					silva++
				}
			}
			if locale == "pt_BR" {
				assert.Greater(t, accented, 300, "Portuguese names carry accents")
				assert.Greater(t, silva, 100, "Silva is Brazil's commonest surname")
			} else {
				assert.Less(t, silva, 30, "English names are not Brazilian")
			}
		})
	}
}
