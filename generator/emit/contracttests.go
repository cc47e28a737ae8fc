package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// fixtureFunc is the function the service writes in a hand-written test
// file of the generated package; the contract tests call it.
const fixtureFunc = "newContractFixture"

// emitContractTests adds the contract tests of a program: per operation a
// RunContract call with the service's fixture, and the property test of
// its typed fingerprint. The algorithms live in runtime/idemtest; this is
// glue.
func emitContractTests(f *jen.File, prog *ir.Program) {
	emitFixture(f, prog)
	for _, op := range prog.Operations {
		emitContractTest(f, op)
		if op.Request != nil {
			emitFingerprintTest(f, op)
			if op.Tests.Change != nil {
				emitChange(f, op)
			}
		}
	}
	emitStatusTests(f, prog)
}

// emitFixture declares the fixture type the service fills in.
func emitFixture(f *jen.File, prog *ir.Program) {
	var fields []jen.Code
	fields = append(fields, comments("Handlers is the business implementation under test.")...)
	fields = append(fields, jen.Id("Handlers").Id("Handlers"))
	fields = append(fields, comments("ConnString names a database or schema holding the service's business tables; the tests add the idempotency tables.")...)
	fields = append(fields, jen.Id("ConnString").String())
	for _, op := range prog.Operations {
		fields = append(fields, comments(fmt.Sprintf("%s supplies valid requests of %s and counts its business effects.", op.Name, op.Doc))...)
		fields = append(fields, jen.Id(op.Name).Qual(idemtestImport, "Fixture").Index(jen.Id(op.RequestType)))
	}
	comment(f, "contractFixture is what the service supplies to the generated contract tests. Write, in a hand-written _test.go file of this package:")
	f.Comment("//")
	f.Comment("//\tfunc " + fixtureFunc + "(t *testing.T) *contractFixture")
	f.Type().Id("contractFixture").Struct(fields...)
}

// emitContractTest declares the test that runs one operation's contract
// through the routes the service mounts.
func emitContractTest(f *jen.File, op *ir.Operation) {
	run, kase := contractCase(op)
	comment(f, fmt.Sprintf("%s proves the idempotency contract of %s against PostgreSQL with the service's own business logic.", op.Tests.Contract, op.Doc))
	f.Func().Id(op.Tests.Contract).Params(jen.Id("t").Op("*").Qual(testingImport, "T")).Block(
		jen.Id("fx").Op(":=").Id(fixtureFunc).Call(jen.Id("t")),
		jen.Qual(idemtestImport, run).Call(jen.Id("t"), kase),
	)
}

// contractCase returns the idemtest function that runs an operation's
// contract and the case it runs, built from the fixture fx.
func contractCase(op *ir.Operation) (string, jen.Code) {
	run, kase, bind := "RunContract", "ContractCase", op.TypedFunc
	if op.Phased != nil {
		run, kase, bind = "RunPhasedContract", "PhasedContractCase", op.Phased.Func
	}
	c := jen.Dict{
		jen.Id("Operation"):  jen.Id(bind).Call(jen.Id("fx").Dot("Handlers")),
		jen.Id("ConnString"): jen.Id("fx").Dot("ConnString"),
		jen.Id("Fixture"):    jen.Id("fx").Dot(op.Name),
		jen.Id("Mount"):      jen.Id(op.MountVar),
	}
	if op.Tests.ChangeFunc != "" {
		c[jen.Id("Change")] = jen.Func().Params(jen.Id("r").Op("*").Id(op.RequestType)).Block(jen.Id(op.Tests.ChangeFunc).Call(jen.Id("r").Dot(ir.FieldBody)))
	}
	encode := []jen.Code{jen.Return(jen.Nil(), jen.Lit(""), jen.Nil())}
	reqParam := jen.Id("_")
	switch {
	case op.Request != nil && op.Request.MediaType == ir.MediaMultipart:
		reqParam = jen.Id("r")
		encode = []jen.Code{jen.Return(jen.Qual(idemtestImport, "EncodeMultipart").Call(jen.Id("r").Dot(ir.FieldBody)))}
	case op.Request != nil:
		reqParam = jen.Id("r")
		encode = []jen.Code{
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonImport, "Marshal").Call(jen.Id("r").Dot(ir.FieldBody)),
			jen.Return(jen.Id("b"), jen.Lit(ir.MediaJSON), jen.Err()),
		}
	}
	c[jen.Id("Encode")] = jen.Func().Params(reqParam.Op("*").Id(op.RequestType)).Params(jen.Index().Byte(), jen.String(), jen.Error()).Block(encode...)
	path := jen.Dict{}
	for _, p := range op.Params {
		if p.In != ir.InPath {
			continue
		}
		format := "FormatParam"
		if p.Type.Kind == ir.TypeSlice {
			format = "FormatParamList"
		}
		path[jen.Lit(p.Name)] = jen.Qual(idemimplImport, format).Call(jen.Id("r").Dot(p.Field))
	}
	if params := parametersFunc(op); params != nil {
		c[jen.Id("Parameters")] = params
	}
	if len(path) > 0 {
		c[jen.Id("PathParams")] = jen.Func().Params(jen.Id("r").Op("*").Id(op.RequestType)).Map(jen.String()).String().Block(
			jen.Return(jen.Map(jen.String()).String().Values(path)),
		)
	}
	if op.Tests.NaturalKey {
		c[jen.Id("NaturalKey")] = jen.True()
	}
	return run, jen.Qual(idemtestImport, kase).Index(jen.Id(op.RequestType)).Values(c)
}

// emitFingerprintTest declares the property test of a typed fingerprint:
// random bodies, each in a typed request of its own.
func emitFingerprintTest(f *jen.File, op *ir.Operation) {
	body := typeCode(op.Request.Type)
	sum := jen.Func().Params(jen.Id("b").Op("*").Add(body), jen.Id("params").Map(jen.String()).String()).Params(jen.Qual(fingerprintImport, "Sum"), jen.Error()).Block(
		jen.Return(jen.Id(op.FingerprintFunc).Call(jen.Op("&").Id(op.RequestType).Values(jen.Id(ir.FieldBody).Op(":").Id("b")), jen.Id("params"))),
	)
	comment(f, fmt.Sprintf("%s checks on random requests that the typed fingerprint of %s equals the runtime's canonical fingerprint of the same request's JSON.", op.Tests.Fingerprint, op.Doc))
	f.Func().Id(op.Tests.Fingerprint).Params(jen.Id("t").Op("*").Qual(testingImport, "T")).Block(
		jen.If(jen.Err().Op(":=").Qual(idemtestImport, "CheckFingerprint").Call(jen.Id(op.ContractVar), sum), jen.Err().Op("!=").Nil()).Block(
			jen.Id("t").Dot("Fatal").Call(jen.Err()),
		),
	)
}

// emitChange declares the function that changes the change target.
func emitChange(f *jen.File, op *ir.Operation) {
	target := op.Tests.Change
	field := jen.Id("v").Dot(target.Name)
	var change jen.Code
	switch target.Type.Kind {
	case ir.TypeString:
		change = jen.Add(field).Op("+=").Lit("~changed")
		if c := target.Type.Checks; c != nil && c.MaxLength != nil {
			// A suffix could pass the maximum: switch between two values
			// of the minimum length instead.
			n := 1
			if c.MinLength != nil && *c.MinLength > 1 {
				n = *c.MinLength
			}
			a, b := strings.Repeat("x", n), strings.Repeat("y", n)
			change = jen.If(jen.Add(field).Op("==").Lit(a)).Block(jen.Id("v").Dot(target.Name).Op("=").Lit(b)).
				Else().Block(jen.Id("v").Dot(target.Name).Op("=").Lit(a))
		}
	case ir.TypeInt32, ir.TypeInt64, ir.TypeFloat64:
		change = jen.Add(field).Op("++")
	case ir.TypeBool:
		change = jen.Add(field).Op("=").Op("!").Add(jen.Id("v").Dot(target.Name))
	case ir.TypeTime:
		change = jen.Add(field).Op("=").Id("v").Dot(target.Name).Dot("Add").Call(jen.Qual(timeImport, "Second"))
	default:
		first, second := target.Type.Decl.Consts[0].Name, target.Type.Decl.Consts[1].Name
		change = jen.If(jen.Id("v").Dot(target.Name).Op("==").Id(first)).Block(
			jen.Id("v").Dot(target.Name).Op("=").Id(second),
		).Else().Block(jen.Id("v").Dot(target.Name).Op("=").Id(first))
	}
	comment(f, fmt.Sprintf("%s changes %s, a field the fingerprint of %s covers, for the tests that expect a 422.", op.Tests.ChangeFunc, target.JSONName, op.Doc))
	f.Func().Id(op.Tests.ChangeFunc).Params(jen.Id("v").Op("*").Add(typeCode(op.Request.Type))).Block(change)
}

// parametersFunc returns the function that gives the query parameters and
// headers of a typed request for the contract tests to send; nil when the
// operation has no query, header or cookie parameter.
func parametersFunc(op *ir.Operation) jen.Code {
	var body []jen.Code
	for _, p := range op.Params {
		if p.In == ir.InPath {
			continue
		}
		v := jen.Id("r").Dot(ir.FieldParams).Dot(p.Field)
		var text jen.Code
		switch p.Type.Kind {
		case ir.TypePointer:
			text = jen.Qual(idemimplImport, "FormatParam").Call(jen.Op("*").Add(v.Clone()))
		case ir.TypeSlice:
			text = jen.Qual(idemimplImport, "FormatParamList").Call(v.Clone())
		default:
			text = jen.Qual(idemimplImport, "FormatParam").Call(v.Clone())
		}
		var set jen.Code
		switch p.In {
		case ir.InQuery:
			set = jen.Id("q").Dot("Set").Call(jen.Lit(p.Name), text)
		case ir.InHeader:
			set = jen.Id("h").Dot("Set").Call(jen.Lit(p.Name), text)
		default:
			set = jen.Id("h").Dot("Add").Call(jen.Lit("Cookie"), jen.Parens(jen.Op("&").Qual(httpImport, "Cookie").Values(jen.Dict{
				jen.Id("Name"): jen.Lit(p.Name), jen.Id("Value"): text,
			})).Dot("String").Call())
		}
		switch p.Type.Kind {
		case ir.TypePointer:
			set = jen.If(v.Clone().Op("!=").Nil()).Block(set)
		case ir.TypeSlice:
			set = jen.If(jen.Len(v.Clone()).Op(">").Lit(0)).Block(set)
		}
		body = append(body, set)
	}
	if len(body) == 0 {
		return nil
	}
	body = append([]jen.Code{jen.List(jen.Id("q"), jen.Id("h")).Op(":=").Qual(urlImport, "Values").Values().Op(",").Qual(httpImport, "Header").Values()}, body...)
	body = append(body, jen.Return(jen.Id("q"), jen.Id("h")))
	return jen.Func().Params(jen.Id("r").Op("*").Id(op.RequestType)).Params(jen.Qual(urlImport, "Values"), jen.Qual(httpImport, "Header")).Block(body...)
}
