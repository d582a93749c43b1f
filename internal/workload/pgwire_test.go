package workload

import (
	"encoding/binary"
	"strings"
	"testing"
)

// dataRow builds a DataRow body; nil is a NULL column.
func dataRow(cols ...*string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(cols)))
	for _, c := range cols {
		if c == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(*c)))
		b = append(b, *c...)
	}
	return b
}

func ptr(s string) *string { return &s }

func TestPGDataRow(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    []string
		wantErr string
	}{
		{"two columns", dataRow(ptr("15.8"), ptr("")), []string{"15.8", ""}, ""},
		{"no columns", dataRow(), []string{}, ""},
		{"null", dataRow(ptr("1"), nil), nil, "column 2 is NULL"},
		{"short", []byte{0}, nil, "short data row"},
		{"cut in a length", dataRow(ptr("1"))[:4], nil, "cut at column 1 of 1"},
		{"cut in a value", dataRow(ptr("12345"))[:8], nil, "cut in column 1 of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pgDataRow(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("pgDataRow = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPGError(t *testing.T) {
	body := []byte("SERROR\x00C42P01\x00Mrelation \"x\" does not exist\x00\x00")
	if got, want := pgError(body).Error(), `postgres: ERROR: relation "x" does not exist (SQLSTATE 42P01)`; got != want {
		t.Errorf("pgError = %q, want %q", got, want)
	}
	if got := pgError([]byte("SFATAL\x00\x00")).Error(); got != "postgres: error without a message" {
		t.Errorf("pgError without M = %q", got)
	}
}

// FuzzPGMessages feeds what a server could send: neither parser may
// panic, and a row parsed is one the builder gives back.
func FuzzPGMessages(f *testing.F) {
	f.Add(dataRow(ptr("a"), ptr("bc")))
	f.Add(dataRow(nil))
	f.Add([]byte("SERROR\x00Mboom\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = pgError(b)
		row, err := pgDataRow(b)
		if err != nil {
			return
		}
		cols := make([]*string, len(row))
		for i := range row {
			cols[i] = &row[i]
		}
		if back := dataRow(cols...); string(back) != string(b[:len(back)]) {
			t.Fatalf("row %q from %x rebuilds as %x", row, b, back)
		}
	})
}
