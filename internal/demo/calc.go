package demo

import (
	"context"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math/big"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxExpressionLen bounds the length of an expression given to evaluate.
const maxExpressionLen = 4096

func registerCalc(srv *mcp.Server) {
	addTool(srv, "evaluate", "Evaluate",
		"Evaluates an arithmetic expression exactly, using Go constant-expression rules: "+
			"+ - * / % << >> & | ^ (xor) &^, comparisons, parentheses, arbitrarily large integers and exact fractions. "+
			"Integer division truncates (7/2 is 3); write 7.0/2 for 3.5 and 1.0/3 for the exact fraction 1/3. "+
			"There is no power operator (2**10 is not valid); use 1<<10 for powers of two or repeated multiplication. "+
			"Conversions such as float64(1)/3 or int8(100) are allowed and respect the type's range.",
		evaluate)
	addTool(srv, "convert_units", "Convert units",
		"Converts a value between units of the same kind. "+
			"Length: m, km, cm, mm, mi, yd, ft, in. Mass: kg, g, mg, lb, oz. Temperature: C, F, K. "+
			"Data: B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024). Unit names are case-insensitive.",
		convertUnits)
}

type evaluateInput struct {
	Expression string `json:"expression" jsonschema:"a Go constant expression, e.g. (1<<64) - 1 or 1.0/3 + 2"`
}

type evaluateOutput struct {
	Value   string `json:"value" jsonschema:"the exact value, e.g. 18446744073709551615, 7/3 or true"`
	Decimal string `json:"decimal,omitempty" jsonschema:"a decimal approximation, given when value is a non-integer number"`
	Type    string `json:"type" jsonschema:"the Go type of the result, e.g. untyped int or untyped float"`
}

func evaluate(_ context.Context, _ *mcp.CallToolRequest, in evaluateInput) (*mcp.CallToolResult, evaluateOutput, error) {
	expr := strings.TrimSpace(in.Expression)
	if expr == "" {
		return nil, evaluateOutput{}, fmt.Errorf("evaluate: empty expression")
	}
	if len(expr) > maxExpressionLen {
		return nil, evaluateOutput{}, fmt.Errorf("evaluate: expression is %d bytes long, the limit is %d", len(expr), maxExpressionLen)
	}
	tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, expr)
	if err != nil {
		msg := fmt.Sprintf("evaluate: %q: %v", expr, err)
		if strings.Contains(expr, "**") {
			msg += " (there is no ** operator; use 1<<n or repeated multiplication)"
		}
		return nil, evaluateOutput{}, fmt.Errorf("%s", msg)
	}
	if tv.Value == nil {
		return nil, evaluateOutput{}, fmt.Errorf("evaluate: %q is not a constant expression", expr)
	}
	out := evaluateOutput{Value: tv.Value.ExactString(), Type: tv.Type.String()}
	if tv.Value.Kind() == constant.Float {
		out.Decimal = decimal(tv.Value)
	}
	text := out.Value
	if out.Decimal != "" && out.Decimal != out.Value {
		text += " ≈ " + out.Decimal
	}
	return textResult(text), out, nil
}

// decimal formats a float constant as a decimal with up to 30 significant digits.
func decimal(v constant.Value) string {
	var f *big.Float
	switch x := constant.Val(v).(type) {
	case *big.Float:
		f = x
	case *big.Rat:
		f = new(big.Float).SetPrec(256).SetRat(x)
	default:
		fv, _ := constant.Float64Val(v)
		return strconv.FormatFloat(fv, 'g', -1, 64)
	}
	return f.Text('g', 30)
}

type convertInput struct {
	Value float64 `json:"value" jsonschema:"the quantity to convert"`
	From  string  `json:"from" jsonschema:"the unit of value, e.g. km, lb, F or MiB"`
	To    string  `json:"to" jsonschema:"the unit to convert to, of the same kind as from"`
}

type convertOutput struct {
	Value  float64 `json:"value" jsonschema:"the converted quantity"`
	Unit   string  `json:"unit" jsonschema:"the canonical symbol of the target unit"`
	Kind   string  `json:"kind" jsonschema:"length, mass, temperature or data"`
	Source string  `json:"source" jsonschema:"the input quantity with its canonical unit"`
}

// unit is a unit of measurement. Except for temperatures, a quantity in the
// unit is factor times the same quantity in the kind's base unit.
type unit struct {
	symbol string
	kind   string
	factor float64
}

// units returns the known units keyed by lower-case symbol.
func units() map[string]unit {
	list := []unit{
		{"m", "length", 1}, {"km", "length", 1000}, {"cm", "length", 0.01}, {"mm", "length", 0.001},
		{"mi", "length", 1609.344}, {"yd", "length", 0.9144}, {"ft", "length", 0.3048}, {"in", "length", 0.0254},
		{"kg", "mass", 1}, {"g", "mass", 0.001}, {"mg", "mass", 1e-6},
		{"lb", "mass", 0.45359237}, {"oz", "mass", 0.45359237 / 16},
		{"C", "temperature", 0}, {"F", "temperature", 0}, {"K", "temperature", 0},
		{"B", "data", 1}, {"KB", "data", 1e3}, {"MB", "data", 1e6}, {"GB", "data", 1e9}, {"TB", "data", 1e12},
		{"KiB", "data", 1 << 10}, {"MiB", "data", 1 << 20}, {"GiB", "data", 1 << 30}, {"TiB", "data", 1 << 40},
	}
	m := make(map[string]unit, len(list))
	for _, u := range list {
		m[strings.ToLower(u.symbol)] = u
	}
	return m
}

// lookupUnit returns the unit with the given case-insensitive symbol.
func lookupUnit(table map[string]unit, symbol string) (unit, error) {
	s := strings.ToLower(strings.TrimSpace(symbol))
	s = strings.TrimPrefix(s, "°")
	if u, ok := table[s]; ok {
		return u, nil
	}
	return unit{}, fmt.Errorf("convert_units: unknown unit %q (known: m, km, cm, mm, mi, yd, ft, in, kg, g, mg, lb, oz, C, F, K, B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", symbol)
}

func convertUnits(_ context.Context, _ *mcp.CallToolRequest, in convertInput) (*mcp.CallToolResult, convertOutput, error) {
	table := units()
	from, err := lookupUnit(table, in.From)
	if err != nil {
		return nil, convertOutput{}, err
	}
	to, err := lookupUnit(table, in.To)
	if err != nil {
		return nil, convertOutput{}, err
	}
	if from.kind != to.kind {
		return nil, convertOutput{}, fmt.Errorf("convert_units: cannot convert %s (%s) to %s (%s)", from.symbol, from.kind, to.symbol, to.kind)
	}
	var v float64
	if from.kind == "temperature" {
		v, err = convertTemperature(in.Value, from.symbol, to.symbol)
		if err != nil {
			return nil, convertOutput{}, err
		}
	} else {
		v = in.Value * from.factor / to.factor
	}
	// Round to 12 significant digits to hide floating-point noise.
	v, _ = strconv.ParseFloat(formatFloat(v), 64)
	out := convertOutput{
		Value:  v,
		Unit:   to.symbol,
		Kind:   to.kind,
		Source: formatFloat(in.Value) + " " + from.symbol,
	}
	return textResult(fmt.Sprintf("%s = %s %s", out.Source, formatFloat(v), to.symbol)), out, nil
}

// convertTemperature converts v between the temperature scales C, F and K.
func convertTemperature(v float64, from, to string) (float64, error) {
	var kelvin float64
	switch from {
	case "C":
		kelvin = v + 273.15
	case "F":
		kelvin = (v-32)*5/9 + 273.15
	case "K":
		kelvin = v
	}
	if kelvin < 0 {
		return 0, fmt.Errorf("convert_units: %s %s is below absolute zero", formatFloat(v), from)
	}
	switch to {
	case "C":
		return kelvin - 273.15, nil
	case "F":
		return (kelvin-273.15)*9/5 + 32, nil
	default:
		return kelvin, nil
	}
}

// formatFloat formats v with up to 12 significant digits, hiding
// floating-point noise such as 0.30000000000000004.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', 12, 64)
}
