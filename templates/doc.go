// Package templates holds the text/template sources idemgen renders,
// embedded in the binary. Templates only lay out values that their callers
// have already decided; they hold no logic beyond range and if.
//
// It is a leaf: it must not import any other idemgen package.
package templates
