package generator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/spec"
)

// typesSpec is the spec of the golden case types-<name>, whose want/types.go
// cmd/idemgen's TestGolden keeps.
func typesSpec(name string) string {
	return filepath.Join("..", "testdata", "golden", "types-"+name, "openapi.yaml")
}

// planCase loads and plans the spec of the golden case types-<name>.
func planCase(t *testing.T, name string, opts TypeOptions) (*TypePlan, string) {
	t.Helper()
	path := typesSpec(name)
	doc := loadTypesDoc(t, path)
	plan, err := PlanTypes(doc, doc.Operations, opts)
	if err != nil {
		t.Fatalf("PlanTypes(%s): %v", name, err)
	}
	return plan, path
}

// decl returns the declaration named name.
func decl(t *testing.T, plan *TypePlan, name string) *TypeDecl {
	t.Helper()
	for _, d := range plan.Decls {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no declaration %s", name)
	return nil
}

// typeString writes a GoType the way Go spells it, to compare shapes.
func typeString(t *GoType) string {
	switch t.Kind {
	case TypeSlice:
		return "[]" + typeString(t.Elem)
	case TypeMap:
		return "map[string]" + typeString(t.Elem)
	case TypePointer:
		return "*" + typeString(t.Elem)
	case TypeNullable:
		return "idem.Nullable[" + typeString(t.Elem) + "]"
	case TypeDeclared:
		return t.Decl.Name
	case TypeExternal:
		return t.External.Path + "." + t.External.Name
	}
	return map[TypeKind]string{
		TypeRaw: "json.RawMessage", TypeBool: "bool", TypeInt32: "int32", TypeInt64: "int64",
		TypeFloat64: "float64", TypeString: "string", TypeTime: "time.Time",
	}[t.Kind]
}

// fieldRow is what a test checks of a struct field.
type fieldRow struct {
	Name, JSON, Type   string
	Required, Nullable bool
}

func fieldRows(d *TypeDecl) []fieldRow {
	rows := make([]fieldRow, len(d.Fields))
	for i, f := range d.Fields {
		rows[i] = fieldRow{f.Name, f.JSONName, typeString(f.Type), f.Required, f.Nullable}
	}
	return rows
}

// lineOf returns the 1-based line of the first line of the file holding
// text.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", path, text)
	return 0
}

func TestPlanOperations(t *testing.T) {
	plan, _ := planCase(t, "orders", TypeOptions{})
	type opRow struct {
		Name, Request, RequestMedia, Response string
		Status                                int
	}
	var got []opRow
	for _, ot := range plan.Operations {
		r := opRow{Name: ot.Name}
		if ot.Request != nil {
			r.Request, r.RequestMedia = typeString(ot.Request.Type), ot.Request.MediaType
		}
		if ot.Success() != nil {
			r.Response, r.Status = typeString(ot.Success().Type), ot.Success().Status
		}
		got = append(got, r)
	}
	want := []opRow{
		{Name: "CreateOrder", Request: "CreateOrderBody", RequestMedia: MediaJSON, Response: "Order", Status: 201},
		{Name: "DeleteOrder"},
		{Name: "ReplaceOrder", Request: "Order", RequestMedia: MediaJSON, Response: "Order", Status: 200},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if plan.Operations[0].Success().Type.Decl != plan.Operations[2].Request.Type.Decl {
		t.Error("Order is planned twice; want one declaration shared by both operations")
	}
}

func TestPlanStructs(t *testing.T) {
	plan, path := planCase(t, "orders", TypeOptions{})
	tests := []struct {
		decl string
		want []fieldRow
	}{
		{"CreateOrderBody", []fieldRow{
			{"CustomerID", "customer_id", "string", true, false},
			{"Items", "items", "[]Item", true, false},
			{"Delivery", "delivery", "CreateOrderBodyDelivery", true, false},
			{"Note", "note", "idem.Nullable[string]", false, true},
			{"Metadata", "metadata", "map[string]string", false, false},
			{"Extra", "extra", "json.RawMessage", false, false},
			// Properties and an additionalProperties schema: no struct
			// holds both.
			{"Labels", "labels", "json.RawMessage", false, false},
			{"Discount", "discount", "json.RawMessage", false, false},
		}},
		{"CreateOrderBodyDelivery", []fieldRow{
			{"Address", "address", "Address", true, false},
			{"Window", "window", "*CreateOrderBodyDeliveryWindow", false, false},
			{"NotBefore", "not_before", "*string", false, false},
		}},
		// allOf: the properties and required lists of both parts, the
		// parts' fields in the parts' order.
		{"Order", []fieldRow{
			{"Items", "items", "[]Item", true, false},
			{"Tags", "tags", "[]string", false, false},
			{"ID", "id", "string", true, false},
			{"Status", "status", "Status", true, false},
			// allOf of a $ref and a description is the $ref.
			{"PreviousStatus", "previous_status", "idem.Nullable[Status]", false, true},
			{"CreatedAt", "created_at", "*string", false, false},
			// allOf with a oneOf part cannot be one struct.
			{"Payment", "payment", "json.RawMessage", false, false},
			{"Totals", "totals", "map[string]*int64", false, false},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, fieldRows(decl(t, plan, tt.decl))); diff != "" {
			t.Errorf("%s fields (-want +got):\n%s", tt.decl, diff)
		}
	}
	req := decl(t, plan, "CreateOrderBody")
	if owner := plan.Owner(req); owner == nil || owner.ID != "createOrder" || req.Component != "" {
		t.Errorf("CreateOrderBody owner = %v, component %q; want createOrder and no component", owner, req.Component)
	}
	if f := req.Fields[0]; f.Type.Format != "uuid" || plan.FieldPos(f).Line != lineOf(t, path, "customer_id: {type") {
		t.Errorf("customer_id: format %q at %s; want uuid at line %d", f.Type.Format, plan.FieldPos(f), lineOf(t, path, "customer_id: {type"))
	}
	order := decl(t, plan, "Order")
	if order.Component != "#/components/schemas/Order" || plan.Owner(order) != nil || plan.DeclPos(order).Line != lineOf(t, path, "    Order:") {
		t.Errorf("Order: component %q owner %v at %s", order.Component, plan.Owner(order), plan.DeclPos(order))
	}
	status := decl(t, plan, "Status")
	var consts []EnumConst
	for _, c := range status.Consts {
		consts = append(consts, *c)
	}
	wantConsts := []EnumConst{{Name: "StatusPending", Value: "pending"}, {Name: "StatusPaid", Value: "paid"}, {Name: "StatusShipped", Value: "shipped"}}
	if diff := cmp.Diff(wantConsts, consts); status.Kind != DeclEnum || diff != "" {
		t.Errorf("Status constants (-want +got):\n%s", diff)
	}
}

func TestPlanRecursion(t *testing.T) {
	plan, _ := planCase(t, "recursion", TypeOptions{})
	tests := []struct {
		decl string
		want []fieldRow
	}{
		{"Node", []fieldRow{
			{"Name", "name", "string", true, false},
			// Required, but a Node cannot hold a Node by value.
			{"Parent", "parent", "*Node", true, false},
			{"Self", "self", "*Node", true, false},
			{"Children", "children", "[]Node", false, false},
			{"ByName", "by_name", "map[string]Node", false, false},
			{"Wrapper", "wrapper", "*NodeWrapper", false, false},
		}},
		{"NodeWrapper", []fieldRow{{"Node", "node", "*Node", true, false}}},
		// Tree → Branch → Leaf → Tree: the cycle is cut where it closes.
		{"Tree", []fieldRow{{"Root", "root", "Branch", true, false}}},
		{"Branch", []fieldRow{{"Leaf", "leaf", "Leaf", true, false}}},
		{"Leaf", []fieldRow{
			{"Tree", "tree", "*Tree", true, false},
			{"List", "list", "[]json.RawMessage", false, false},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, fieldRows(decl(t, plan, tt.decl))); diff != "" {
			t.Errorf("%s fields (-want +got):\n%s", tt.decl, diff)
		}
	}
}

func TestPlanOpenAPI31(t *testing.T) {
	plan, _ := planCase(t, "openapi31", TypeOptions{})
	want := []fieldRow{
		{"Name", "name", "*string", true, true},
		{"Floor", "floor", "int64", true, false},
		{"Capacity", "capacity", "idem.Nullable[int64]", false, true},
		{"Features", "features", "idem.Nullable[[]string]", false, true},
		{"Mixed", "mixed", "json.RawMessage", false, false},
		{"Tags", "tags", "json.RawMessage", false, false},
		{"View", "view", "idem.Nullable[UpdateRoomBodyView]", false, true},
	}
	if diff := cmp.Diff(want, fieldRows(decl(t, plan, "UpdateRoomBody"))); diff != "" {
		t.Errorf("UpdateRoomBody fields (-want +got):\n%s", diff)
	}
	if got := typeString(plan.Operations[0].Success().Type); got != "[]UpdateRoom200BodyItem" {
		t.Errorf("response type = %s, want []UpdateRoom200BodyItem", got)
	}
}

func TestPlanExternal(t *testing.T) {
	plan, _ := planCase(t, "xgotype", TypeOptions{})
	want := []fieldRow{
		{"Room", "room", "net/netip.Addr", true, false},
		{"Length", "length", "time.Duration", true, false},
		{"Guest", "guest", "*net/netip.Prefix", false, false},
		{"Code", "code", "*.string", false, false},
	}
	if diff := cmp.Diff(want, fieldRows(decl(t, plan, "CreateBookingBody"))); diff != "" {
		t.Errorf("CreateBookingBody fields (-want +got):\n%s", diff)
	}
}

func TestPlanForm(t *testing.T) {
	plan, _ := planCase(t, "form", TypeOptions{})
	got := map[string]bool{}
	for _, d := range plan.Decls {
		got[d.Name] = d.Form
	}
	want := map[string]bool{
		"Address": true, "PostChargesBody": true, "PostChargesBodyShipping": true,
		"PostChargesBodyItemsItem": true, "PostChargesBodyCaptureMethod": true,
		// Only the response uses charge: it needs no form decoder.
		"Charge":                  false,
		"DeleteChargesChargeBody": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Form flags (-want +got):\n%s", diff)
	}
	if mt := plan.Operations[0].Request.MediaType; mt != MediaForm {
		t.Errorf("request media type = %s, want %s", mt, MediaForm)
	}
}

func TestPlanCollisions(t *testing.T) {
	plan, path := planCase(t, "collisions", TypeOptions{StructMethods: []string{"Fingerprint"}, Reserved: []string{"Source"}})
	type renameRow struct{ Key, Want, Got, HeldBy string }
	var got []renameRow
	for _, r := range plan.Renames {
		got = append(got, renameRow{r.Key, r.Want, r.Got, r.HeldBy})
	}
	want := []renameRow{
		{"schema #/components/schemas/source", "Source", "Source2", "the caller"},
		{"request body of CreateCall (POST /calls)", "CreateCallBody", "CreateCallBody2", "schema #/components/schemas/CreateCallBody"},
		// Constants yield to types, whatever their order.
		{`value "a_b" of CreateCallBody2Status`, "CreateCallBody2StatusAB", "CreateCallBody2StatusAB2", `value "a-b" of CreateCallBody2Status`},
		{`value "ach_credit_transfer" of SourceType`, "SourceTypeAchCreditTransfer", "SourceTypeAchCreditTransfer2", "schema #/components/schemas/source_type_ach_credit_transfer"},
		{"field StartTime< of CreateCallBody2", "StartTime", "StartTime2", "field StartTime of CreateCallBody2"},
		{"field decode_form of CreateCallBody2", "DecodeForm", "DecodeForm2", "a method"},
		{"field start-time of CreateCallBody2", "StartTime", "StartTime3", "field StartTime of CreateCallBody2"},
		{"field start_time of CreateCallBody2", "StartTime", "StartTime4", "field StartTime of CreateCallBody2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renames (-want +got):\n%s", diff)
	}
	r := plan.Renames[1]
	if r.Pos.Line != lineOf(t, path, "the inline body of CreateCall") || r.HeldPos.Line != lineOf(t, path, "    CreateCallBody:") {
		t.Errorf("rename positions %s and %s; want the inline body and the component", r.Pos, r.HeldPos)
	}
}

func TestPlanFieldMethodReserved(t *testing.T) {
	doc := loadTypesDoc(t, typesSpec("orders"))
	plan, err := PlanTypes(doc, doc.Operations, TypeOptions{StructMethods: []string{"Items"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range decl(t, plan, "Order").Fields {
		if f.JSONName == "items" && f.Name != "Items2" {
			t.Errorf("field items of Order is %s; want Items2, Items being a method", f.Name)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	path := typesSpec("xgotype-invalid")
	doc := loadTypesDoc(t, path)
	_, err := PlanTypes(doc, doc.Operations, TypeOptions{})
	var list spec.ErrorList
	if !errors.As(err, &list) || len(list) != 4 {
		t.Fatalf("PlanTypes error = %v; want a spec.ErrorList of 4", err)
	}
	last := list[3]
	if last.Pos.Line != lineOf(t, path, "  /b:")+1 || !strings.Contains(last.Msg, "collides with operation create_thing (POST /a) at "+path+":5:5") {
		t.Errorf("operation collision = %v; want it at POST /b naming POST /a at line 5", last)
	}
}

func TestPlanMedia(t *testing.T) {
	plan, _ := planCase(t, "media", TypeOptions{})
	upload, patch := plan.Operations[0], plan.Operations[1]
	if patch.Op.ID != "patchRoom" || upload.Op.ID != "uploadFile" {
		t.Fatalf("operations %s, %s; want patchRoom, uploadFile", patch.Op.ID, upload.Op.ID)
	}
	if r := patch.Request; r.MediaType != MediaJSON || r.ContentType != "application/merge-patch+json" || len(r.Type.Decl.Fields) != 2 {
		t.Errorf("patchRoom request = %s (%s) with %d fields; want the merge-patch JSON body over the form one", r.MediaType, r.ContentType, len(r.Type.Decl.Fields))
	}
	if r := patch.Success(); r.ContentType != "application/json; charset=utf-8" || r.Status != 200 {
		t.Errorf("patchRoom response = %s %d; want the JSON one of 200", r.ContentType, r.Status)
	}
	if upload.Unsupported != nil {
		t.Fatalf("uploadFile: unsupported %v, want its multipart body planned", upload.Unsupported)
	}
	r := upload.Request
	if r.MediaType != MediaMultipart || !r.Type.Decl.Form || len(r.Type.Decl.Fields) != 1 {
		t.Fatalf("uploadFile request = %s with %d fields; want the multipart body with its one field, decoded as a form", r.MediaType, len(r.Type.Decl.Fields))
	}
	if f := r.Type.Decl.Fields[0].Type; f.Kind != TypePointer || f.Elem.Kind != TypeFile {
		t.Errorf("uploadFile's file field is %v; want an optional file", f)
	}
}
