package vm

// The words for the boots' facts are report's, and report imports vm:
// this package's tests reach them through this hook, which
// words_test.go (package vm_test) sets to report's function.
var BootStopLines func([]BootStop) []string
