package dataset

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// Formats draw values that look real and pass their own checks. People
// (names, phones, addresses, e-mails) come from gofakeit, fed with
// Brazilian names and places when the model's locale is pt_BR (gofakeit's
// own data is American English). Documents carry valid check digits; Pix
// and boleto identifiers follow the Central Bank's layouts.

// faker draws through gofakeit from one of the generator's streams.
type faker struct {
	r *rng
	f *gofakeit.Faker
}

func newFaker() *faker {
	fk := &faker{r: &rng{}}
	fk.f = gofakeit.NewFaker(fk.r, false)
	return fk
}

const alnumUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func appendRandom(dst []byte, r *rng, set string, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, set[r.Intn(int64(len(set)))])
	}
	return dst
}

func appendDigits(dst []byte, r *rng, n int) []byte { return appendRandom(dst, r, "0123456789", n) }

// cpfDigits returns the 11 digits of the CPF whose first nine are base
// (mod 10^9), with its two check digits.
func cpfDigits(base uint64) [11]byte {
	var d [11]byte
	base %= 1_000_000_000
	for i := 8; i >= 0; i-- {
		d[i] = byte(base % 10)
		base /= 10
	}
	d[9] = mod11Check(d[:9], 10)
	d[10] = mod11Check(d[:10], 11)
	return d
}

// mod11Check is the CPF check digit over ds with weights from w down.
func mod11Check(ds []byte, w int) byte {
	s := 0
	for i, x := range ds {
		s += int(x) * (w - i)
	}
	r := s % 11
	if r < 2 {
		return 0
	}
	return byte(11 - r)
}

// ValidCPF reports whether s (formatted or digits only) is a CPF with
// valid check digits.
func ValidCPF(s string) bool {
	var ds []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			ds = append(ds, s[i]-'0')
		}
	}
	if len(ds) != 11 {
		return false
	}
	return mod11Check(ds[:9], 10) == ds[9] && mod11Check(ds[:10], 11) == ds[10]
}

func appendCPF(dst []byte, base uint64, formatted bool) []byte {
	d := cpfDigits(base)
	for i, x := range d {
		if formatted {
			switch i {
			case 3, 6:
				dst = append(dst, '.')
			case 9:
				dst = append(dst, '-')
			}
		}
		dst = append(dst, '0'+x)
	}
	return dst
}

// cnpjCheck is a CNPJ check digit over ds.
func cnpjCheck(ds []byte) byte {
	w := []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	w = w[len(w)-len(ds):]
	s := 0
	for i, x := range ds {
		s += int(x) * w[i]
	}
	r := s % 11
	if r < 2 {
		return 0
	}
	return byte(11 - r)
}

// ValidCNPJ reports whether s is a CNPJ with valid check digits.
func ValidCNPJ(s string) bool {
	var ds []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			ds = append(ds, s[i]-'0')
		}
	}
	return len(ds) == 14 && cnpjCheck(ds[:12]) == ds[12] && cnpjCheck(ds[:13]) == ds[13]
}

func appendCNPJ(dst []byte, base uint64, branch int64) []byte {
	var d [14]byte
	base %= 100_000_000
	for i := 7; i >= 0; i-- {
		d[i] = byte(base % 10)
		base /= 10
	}
	br := uint64(branch%9999) + 1
	for i := 11; i >= 8; i-- {
		d[i] = byte(br % 10)
		br /= 10
	}
	d[12] = cnpjCheck(d[:12])
	d[13] = cnpjCheck(d[:13])
	for i, x := range d {
		switch i {
		case 2, 5:
			dst = append(dst, '.')
		case 8:
			dst = append(dst, '/')
		case 12:
			dst = append(dst, '-')
		}
		dst = append(dst, '0'+x)
	}
	return dst
}

// appendPixTxid appends a Pix charge txid: 26 to 35 letters and digits.
func appendPixTxid(dst []byte, r *rng) []byte {
	return appendRandom(dst, r, alnumUpper, int(r.Range(26, 35)))
}

// ispbs are settlement participants' ISPB codes of the kind an E2E id
// starts with (eight digits).
var ispbs = []string{"00000000", "00360305", "60701190", "60746948", "90400888", "00416968", "18236120", "08561701"}

// appendPixE2E appends a Pix end-to-end id: E, the payer's ISPB, the
// instant (yyyyMMddHHmm, UTC) and 11 letters and digits: 32 characters.
func appendPixE2E(dst []byte, r *rng, at time.Time) []byte {
	dst = append(dst, 'E')
	dst = append(dst, ispbs[r.Intn(int64(len(ispbs)))]...)
	dst = appendUTCMinute(dst, at)
	return appendRandom(dst, r, alnum, 11)
}

// appendUTCMinute writes at in UTC as 200601021504, by the calendar's
// arithmetic (the time package's layout walk was most of a Pix id's
// cost).
func appendUTCMinute(b []byte, at time.Time) []byte {
	sec := at.Unix()
	day := floorDiv(sec, 86400)
	sod := sec - day*86400
	y, m, d := civilFromDays(day)
	if y < 0 || y > 9999 {
		return at.UTC().AppendFormat(b, "200601021504")
	}
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	b = append2(b, m)
	b = append2(b, d)
	b = append2(b, sod/3600)
	return append2(b, sod/60%60)
}

// banks are clearing codes of the kind a boleto starts with.
var banks = []string{"001", "033", "104", "237", "341", "748", "756"}

// appendBoleto appends the 47-digit typeable line of a boleto: bank,
// currency 9, the free field in three check-digited parts, the general
// check digit (mod 11 over the 44-digit bar code), the due-date factor
// and the amount in cents.
func appendBoleto(dst []byte, r *rng, due time.Time, cents int64) []byte {
	bank := banks[r.Intn(int64(len(banks)))]
	free := appendDigits(nil, r, 25)
	factor := int64(due.Sub(time.Date(1997, 10, 7, 0, 0, 0, 0, time.UTC)).Hours()/24) % 9000
	if factor < 1000 {
		factor += 9000 - 1000 // the factor restarted at 1000 in 2025
	}
	amount := pad(cents%10_000_000_000, 10)
	bar := []byte(bank + "9" + "0" + pad(factor, 4) + amount + string(free))
	bar[4] = boletoDV(append(append([]byte{}, bar[:4]...), bar[5:]...))
	f1 := append([]byte(bank+"9"), free[:5]...)
	f2 := free[5:15]
	f3 := free[15:25]
	dst = append(dst, f1...)
	dst = append(dst, mod10(f1))
	dst = append(dst, f2...)
	dst = append(dst, mod10(f2))
	dst = append(dst, f3...)
	dst = append(dst, mod10(f3))
	dst = append(dst, bar[4])
	dst = append(dst, pad(factor, 4)...)
	return append(dst, amount...)
}

// mod10 is a boleto field's check digit (weights 2, 1 from the right,
// digits of products summed).
func mod10(ds []byte) byte {
	s, w := 0, 2
	for i := len(ds) - 1; i >= 0; i-- {
		p := int(ds[i]-'0') * w
		s += p/10 + p%10
		w = 3 - w
	}
	return byte('0' + (10-s%10)%10)
}

// boletoDV is the general check digit over the 43 other digits of a bar
// code (weights 2 to 9 from the right; 0, 10 and 11 give 1).
func boletoDV(ds []byte) byte {
	s, w := 0, 2
	for i := len(ds) - 1; i >= 0; i-- {
		s += int(ds[i]-'0') * w
		w++
		if w > 9 {
			w = 2
		}
	}
	d := 11 - s%11
	if d == 0 || d == 10 || d == 11 {
		d = 1
	}
	return byte('0' + d)
}

// ValidBoleto reports whether a 47-digit typeable line has valid field
// and general check digits.
func ValidBoleto(s string) bool {
	if len(s) != 47 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	b := []byte(s)
	if mod10(b[0:9]) != b[9] || mod10(b[10:20]) != b[20] || mod10(b[21:31]) != b[31] {
		return false
	}
	bar := string(b[0:4]) + string(b[33:47]) + string(b[4:9]) + string(b[10:20]) + string(b[21:31])
	return boletoDV([]byte(bar)) == b[32]
}

// Brazilian names and places for the pt_BR locale.
var (
	brFirst = []string{"Ana", "Maria", "Francisca", "Antônia", "Adriana", "Juliana", "Márcia", "Fernanda", "Patrícia", "Aline",
		"Sandra", "Camila", "Amanda", "Bruna", "Jéssica", "Letícia", "Júlia", "Luciana", "Vanessa", "Mariana",
		"José", "João", "Antônio", "Francisco", "Carlos", "Paulo", "Pedro", "Lucas", "Luiz", "Marcos",
		"Luís", "Gabriel", "Rafael", "Daniel", "Marcelo", "Bruno", "Eduardo", "Felipe", "Raimundo", "Rodrigo",
		"Thiago", "Matheus", "Gustavo", "Leonardo", "Vinícius", "Caio", "Igor", "Renata", "Beatriz", "Larissa"}
	brLast = []string{"Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
		"Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa",
		"Rocha", "Dias", "Nascimento", "Andrade", "Moreira", "Nunes", "Marques", "Machado", "Mendes", "Freitas",
		"Cardoso", "Ramos", "Gonçalves", "Santana", "Teixeira", "Araújo", "Pinto", "Correia", "Batista", "Monteiro"}
	brStreetKind = []string{"Rua", "Rua", "Rua", "Avenida", "Avenida", "Travessa", "Alameda", "Praça", "Estrada"}
	brStreet     = []string{"das Flores", "São João", "Sete de Setembro", "XV de Novembro", "Brasil", "Getúlio Vargas", "Tiradentes",
		"Dom Pedro II", "Santos Dumont", "Rui Barbosa", "Marechal Deodoro", "Duque de Caxias", "das Palmeiras", "da Paz",
		"Castro Alves", "Paulista", "Amazonas", "Independência", "Boa Vista", "Beira-Mar", "dos Andradas", "Barão do Rio Branco"}
	// brCities: city, state and the city's telephone area code (DDD).
	brCities = [][3]string{{"São Paulo", "SP", "11"}, {"Rio de Janeiro", "RJ", "21"}, {"Belo Horizonte", "MG", "31"},
		{"Salvador", "BA", "71"}, {"Fortaleza", "CE", "85"}, {"Brasília", "DF", "61"}, {"Curitiba", "PR", "41"},
		{"Recife", "PE", "81"}, {"Porto Alegre", "RS", "51"}, {"Manaus", "AM", "92"}, {"Belém", "PA", "91"},
		{"Goiânia", "GO", "62"}, {"Campinas", "SP", "19"}, {"São Luís", "MA", "98"}, {"Maceió", "AL", "82"},
		{"Natal", "RN", "84"}, {"Teresina", "PI", "86"}, {"João Pessoa", "PB", "83"}, {"Florianópolis", "SC", "48"},
		{"Vitória", "ES", "27"}, {"Cuiabá", "MT", "65"}, {"Campo Grande", "MS", "67"}, {"Aracaju", "SE", "79"},
		{"Londrina", "PR", "43"}, {"Ribeirão Preto", "SP", "16"}, {"Uberlândia", "MG", "34"}}
	brMail    = []string{"gmail.com", "hotmail.com", "outlook.com", "yahoo.com.br", "uol.com.br", "bol.com.br", "terra.com.br"}
	brCompany = []string{"Comércio", "Serviços", "Distribuidora", "Indústria", "Transportes", "Construtora", "Alimentos", "Tecnologia"}
	brSuffix  = []string{"Ltda", "S.A.", "ME", "EIRELI"}
)

// asciiFold lowers s and drops its accents, for e-mail addresses.
func asciiFold(s string) string {
	r := strings.NewReplacer("á", "a", "à", "a", "â", "a", "ã", "a", "é", "e", "ê", "e", "í", "i", "ó", "o", "ô", "o", "õ", "o", "ú", "u", "ç", "c",
		"Á", "a", "Â", "a", "É", "e", "Í", "i", "Ó", "o", "Ú", "u", " ", "")
	return strings.ToLower(r.Replace(s))
}

// appendFormat appends a value of a person-or-place format in the locale,
// drawing from r (formats that need more than a stream are handled by
// the caller).
func (fk *faker) appendFormat(dst []byte, format string, br bool, r *rng) []byte {
	fk.r.s = r.Uint64()
	f := fk.f
	if br {
		city := brCities[r.Intn(int64(len(brCities)))]
		switch format {
		case "name":
			return append(dst, f.RandomString(brFirst)+" "+f.RandomString(brLast)+" "+f.RandomString(brLast)...)
		case "firstName":
			return append(dst, f.RandomString(brFirst)...)
		case "lastName":
			return append(dst, f.RandomString(brLast)...)
		case "email":
			return append(dst, asciiFold(f.RandomString(brFirst))+"."+asciiFold(f.RandomString(brLast))+strconv.Itoa(f.Number(1, 999))+"@"+f.RandomString(brMail)...)
		case "phone":
			return append(dst, "("+city[2]+") "+f.Numerify("9####-####")...)
		case "street":
			return append(dst, f.RandomString(brStreetKind)+" "+f.RandomString(brStreet)+", "+strconv.Itoa(f.Number(1, 3999))...)
		case "city":
			return append(dst, city[0]...)
		case "state":
			return append(dst, city[1]...)
		case "postalCode":
			return append(dst, f.Numerify("#####-###")...)
		case "address":
			return append(dst, f.RandomString(brStreetKind)+" "+f.RandomString(brStreet)+", "+strconv.Itoa(f.Number(1, 3999))+" - "+city[0]+"/"+city[1]+" - "+f.Numerify("#####-###")...)
		case "company":
			return append(dst, f.RandomString(brLast)+" "+f.RandomString(brCompany)+" "+f.RandomString(brSuffix)...)
		}
	}
	switch format {
	case "name":
		return append(dst, f.Name()...)
	case "firstName":
		return append(dst, f.FirstName()...)
	case "lastName":
		return append(dst, f.LastName()...)
	case "email":
		return append(dst, f.Email()...)
	case "phone":
		return append(dst, f.PhoneFormatted()...)
	case "street":
		return append(dst, f.Street()...)
	case "city":
		return append(dst, f.City()...)
	case "state":
		return append(dst, f.StateAbr()...)
	case "postalCode":
		return append(dst, f.Zip()...)
	case "address":
		a := f.Address()
		return append(dst, a.Address...)
	case "company":
		return append(dst, f.Company()...)
	case "uuid":
		return append(dst, f.UUID()...)
	case "sentence":
		return append(dst, f.Sentence(8)...)
	case "word":
		return append(dst, f.Word()...)
	}
	return dst
}

// testKey is the AES key of encrypt rules: derived from the model's name,
// so the ciphertexts are deterministic and plainly not a real key's.
func testKey(model string) cipher.AEAD {
	k := sha256.Sum256([]byte(model + "-test-encryption-key"))
	b, _ := aes.NewCipher(k[:])
	g, _ := cipher.NewGCM(b)
	return g
}

// appendEncrypt appends nonce || AES-GCM(plain): what a client-side
// encryption library stores.
func appendEncrypt(dst []byte, g cipher.AEAD, r *rng, plain []byte) []byte {
	var nonce [12]byte
	for i := 0; i < 12; i += 4 {
		x := r.Uint64()
		nonce[i], nonce[i+1], nonce[i+2], nonce[i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	dst = append(dst, nonce[:]...)
	return g.Seal(dst, nonce[:], plain, nil)
}
