package emit

// TypesFile renders a types file in up to parts parts, for the test that
// joining the parts gives the bytes of one render.
var TypesFile = typesFile
