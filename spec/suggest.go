package spec

// Suggest returns a hint naming the known name closest to name, such as
// ` (did you mean "retention"?)`, or "" when none is close enough to be a
// plausible typo. Other readers of idemgen's YAML (the generate
// configuration) use it for their unknown keys.
func Suggest(name string, known []string) string { return didYouMean(name, known) }
