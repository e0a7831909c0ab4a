package toolgate

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/policy"
)

// decodePolicy decodes the toolgate.policy section, naming the rule index
// and field of every error.
func decodePolicy(raw json.RawMessage) (policy.Config, error) {
	var pc policy.Config
	var items []json.RawMessage
	if err := decodeObject("toolgate.policy", raw, map[string]any{"presets": &pc.Presets, "rules": &items}); err != nil {
		return pc, err
	}
	var errs []error
	for i, item := range items {
		rule, err := decodeRule(fmt.Sprintf("toolgate.policy.rules[%d]", i), item)
		errs = append(errs, err)
		pc.Rules = append(pc.Rules, rule)
	}
	return pc, errors.Join(errs...)
}

func decodeRule(path string, raw json.RawMessage) (policy.Rule, error) {
	var rule policy.Rule
	err := decodeObject(path, raw, map[string]any{
		"action": &rule.Action, "name": &rule.Name, "server": &rule.Server, "tool": &rule.Tool,
		"urlHost": &rule.URLHost, "urlPath": &rule.URLPath, "urlScheme": &rule.URLScheme,
		"args": &rule.Args, "arg": &rule.Arg, "regex": &rule.Regex, "agent": &rule.Agent,
		"role": &rule.Role, "message": &rule.Message,
	})
	return rule, err
}

// compilePolicy compiles the policy section, with errors named from the
// config's root.
func compilePolicy(pc policy.Config) (*policy.Engine, error) {
	e, err := policy.Compile(pc)
	if err != nil {
		return nil, fmt.Errorf("toolgate.policy.%w", err)
	}
	return e, nil
}
