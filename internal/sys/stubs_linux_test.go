package sys

import (
	"go/build"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"testing"
)

// stubsFor type-checks this package from source as it builds for goos on
// goarch, the way the compiler would there.
func stubsFor(t *testing.T, goos, goarch string) *types.Package {
	t.Helper()
	// The source importer reads build.Default when it is made.
	saved := build.Default
	defer func() { build.Default = saved }()
	build.Default.GOOS, build.Default.GOARCH = goos, goarch
	build.Default.CgoEnabled = false
	pkg, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import("github.com/kdelta/kdelta/internal/sys")
	if err != nil {
		t.Fatalf("type-check internal/sys for %s: %v", goos, err)
	}
	return pkg
}

// standIns are the declarations whose type is the package's own on other
// systems, where Linux's comes from x/sys/unix.
var standIns = map[string]bool{
	"PerfEventAttr": true, // the fields kdelta fills, not the whole struct
}

// TestStubsMatchLinux checks that the package declares on other systems
// exactly what it declares on Linux, with the same types, and every
// constant with Linux's value, so a package that builds here builds there
// and a call added on Linux without its stub fails here, not on a laptop.
//
// Linux is linux/amd64 whatever the host, since the flag bits of
// perf_event_attr follow the byte order, and the other systems are the
// laptops of kdelta's users and two that share none of their files.
func TestStubsMatchLinux(t *testing.T) {
	linux := stubsFor(t, "linux", "amd64")
	for _, goos := range []string{"darwin", "freebsd", "windows"} {
		other := stubsFor(t, goos, "arm64")
		for _, name := range exported(linux) {
			lo := linux.Scope().Lookup(name)
			oo := other.Scope().Lookup(name)
			if oo == nil {
				t.Errorf("%s: %s is declared on linux only (%s)", goos, name, lo)
				continue
			}
			if !standIns[name] && typeString(lo.Type()) != typeString(oo.Type()) {
				t.Errorf("%s: %s is %s, on linux %s", goos, name, typeString(oo.Type()), typeString(lo.Type()))
			}
			// An errno is each system's own number.
			if lc, ok := lo.(*types.Const); ok && typeString(lc.Type()) != "syscall.Errno" {
				oc, ok := oo.(*types.Const)
				switch {
				case !ok:
					t.Errorf("%s: %s is not a constant (%s)", goos, name, oo)
				case !constant.Compare(lc.Val(), token.EQL, oc.Val()):
					t.Errorf("%s: %s = %v, on linux %v", goos, name, oc.Val(), lc.Val())
				}
			}
			if tn, ok := lo.(*types.TypeName); ok {
				checkMethods(t, goos, tn, oo.(*types.TypeName))
			}
		}
		for _, name := range exported(other) {
			if linux.Scope().Lookup(name) == nil {
				t.Errorf("%s: %s is declared there only", goos, name)
			}
		}
	}
}

// checkMethods compares the exported methods of a type declared on both.
func checkMethods(t *testing.T, goos string, lt, ot *types.TypeName) {
	t.Helper()
	ms := func(tn *types.TypeName) map[string]string {
		out := map[string]string{}
		set := types.NewMethodSet(types.NewPointer(tn.Type()))
		for i := 0; i < set.Len(); i++ {
			if f := set.At(i).Obj(); f.Exported() && f.Pkg() == tn.Pkg() {
				out[f.Name()] = typeString(f.Type())
			}
		}
		return out
	}
	lm, om := ms(lt), ms(ot)
	for name, sig := range lm {
		if om[name] != sig {
			t.Errorf("%s: method %s.%s is %q, on linux %q", goos, lt.Name(), name, om[name], sig)
		}
	}
	for name := range om {
		if _, ok := lm[name]; !ok {
			t.Errorf("%s: method %s.%s is declared there only", goos, lt.Name(), name)
		}
	}
}

func exported(p *types.Package) []string {
	var out []string
	for _, name := range p.Scope().Names() {
		if token.IsExported(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// typeString writes t with x/sys/unix's Errno as what it is, an alias of
// syscall's, which the stubs use.
func typeString(t types.Type) string {
	return strings.ReplaceAll(types.TypeString(t, nil), "golang.org/x/sys/unix.Errno", "syscall.Errno")
}
