package workflow

import (
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/verify"

	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Step config bounds (contracts/workflows.md).
const (
	maxDelay        = 365 * 24 * time.Hour
	maxWaitTimeout  = 31536000 // seconds: a year
	maxBranches     = 20
	webhookMethodsS = "GET|POST|PUT|PATCH|DELETE"
)

// stepTypes are the types a step can be given by POST …/steps.
var stepTypes = map[string]bool{StepSendEmail: true, StepDelay: true, StepWaitForEvent: true, StepCondition: true,
	StepWebhook: true, StepUpdateContact: true, StepExit: true}

// conditionOps are the operators a CONDITION step takes; valueless ones
// need no value.
var conditionOps = map[string]bool{"equals": false, "notEquals": false, "contains": false, "notContains": false,
	"greaterThan": false, "lessThan": false, "greaterThanOrEqual": false, "lessThanOrEqual": false,
	"exists": true, "notExists": true}

func decodeConfig(raw json.RawMessage) (map[string]any, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// checkStepConfig validates a step's config for its type and returns it
// normalised, with the template it sends (SEND_EMAIL).
func (en *Service) checkStepConfig(ctx context.Context, q storage.Querier, projectID, typ string, raw json.RawMessage, templateID *string) (json.RawMessage, *string, error) {
	var v apierr.Validation
	m, ok := decodeConfig(raw)
	if !ok {
		v.Add("config", "invalid_type", "Config must be an object", string(raw))
		return nil, nil, v.Err()
	}
	str := func(key string) (string, bool) {
		s, ok := m[key].(string)
		return strings.TrimSpace(s), ok
	}
	var out any
	switch typ {
	case StepSendEmail:
		c := SendEmailConfig{}
		c.TemplateID, _ = str("templateId")
		if c.TemplateID == "" && templateID != nil {
			c.TemplateID = *templateID
		}
		if c.TemplateID == "" {
			v.Add("config.templateId", "invalid_type", "Required", "undefined")
		}
		if r, ok := m["recipient"].(map[string]any); ok {
			rule := RecipientRule{Type: "CONTACT"}
			if t, ok := r["type"].(string); ok {
				rule.Type = t
			}
			switch rule.Type {
			case "CONTACT":
			case "CUSTOM":
				ce, _ := r["customEmail"].(string)
				if strings.TrimSpace(ce) == "" {
					v.Add("config.recipient.customEmail", "invalid_type", "A CUSTOM recipient needs customEmail", "undefined")
				} else {
					rule.CustomEmail = verify.CheckEmail(&v, "config.recipient.customEmail", ce)
				}
			default:
				v.Add("config.recipient.type", "invalid_enum_value", "Recipient type must be CONTACT or CUSTOM", r["type"])
			}
			c.Recipient = &rule
		} else if m["recipient"] != nil {
			v.Add("config.recipient", "invalid_type", "Recipient must be an object", m["recipient"])
		}
		if err := v.Err(); err != nil {
			return nil, nil, err
		}
		if _, err := storage.TemplateByID(ctx, q, projectID, c.TemplateID); err != nil {
			return nil, nil, templateErr(err)
		}
		templateID, out = &c.TemplateID, c
	case StepDelay:
		c := DelayConfig{}
		n, ok := Number(m["amount"])
		if !ok || n <= 0 {
			v.Add("config.amount", "too_small", "Amount must be a number greater than 0", m["amount"])
		}
		c.Amount = n
		c.Unit, _ = str("unit")
		if _, ok := audience.UnitLength(c.Unit); !ok {
			v.Add("config.unit", "invalid_enum_value", "Unit must be seconds, minutes, hours or days", m["unit"])
		} else if ok && n > 0 && c.Duration() > maxDelay {
			v.Add("config.amount", "too_big", "A delay is at most 365 days", m["amount"])
		}
		out = c
	case StepWaitForEvent:
		c := WaitConfig{}
		c.EventName, _ = str("eventName")
		if c.EventName == "" || len(c.EventName) > event.MaxEventName {
			v.Add("config.eventName", "too_small", "Event name must be 1 to 255 characters", m["eventName"])
		}
		if t, present := m["timeout"]; present && t != nil {
			n, ok := Number(t)
			if !ok || n != float64(int64(n)) || n < 1 || n > maxWaitTimeout {
				v.Add("config.timeout", "invalid_value", "Timeout must be a whole number of seconds from 1 to 31536000", t)
			} else {
				s := int64(n)
				c.Timeout = &s
			}
		}
		out = c
	case StepCondition:
		out = checkConditionConfig(&v, m)
	case StepWebhook:
		out = checkWebhookConfig(&v, m)
	case StepUpdateContact:
		out = en.checkUpdateConfig(&v, m)
	case StepExit:
		c := ExitConfig{}
		if r, present := m["reason"]; present && r != nil {
			s, ok := r.(string)
			if !ok {
				v.Add("config.reason", "invalid_type", "Reason must be a string", r)
			}
			c.Reason = s
		}
		out = c
	case StepTrigger:
		out = m
	}
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	if typ != StepSendEmail {
		templateID = nil
	}
	b, err := json.Marshal(out)
	return b, templateID, err
}

func checkConditionConfig(v *apierr.Validation, m map[string]any) ConditionConfig {
	c := ConditionConfig{}
	c.Field, _ = m["field"].(string)
	if strings.TrimSpace(c.Field) == "" {
		v.Add("config.field", "invalid_type", "Required", m["field"])
	}
	if mode, _ := m["mode"].(string); mode == "multi" {
		c.Mode = "multi"
		list, ok := m["branches"].([]any)
		if !ok || len(list) < 1 || len(list) > maxBranches {
			v.Add("config.branches", "invalid_value", "A multi condition has 1 to 20 branches", m["branches"])
			return c
		}
		seen := map[string]bool{}
		for i, b := range list {
			obj, _ := b.(map[string]any)
			path := "config.branches." + itoa(i)
			br := ConditionBranch{}
			br.ID, _ = obj["id"].(string)
			br.Name, _ = obj["name"].(string)
			br.Operator, _ = obj["operator"].(string)
			br.Value = obj["value"]
			if br.ID == "" || br.ID == "default" || seen[br.ID] {
				v.Add(path+".id", "invalid_value", "Each branch needs a unique id other than default", obj["id"])
			}
			seen[br.ID] = true
			checkConditionOp(v, path+".", br.Operator, obj)
			c.Branches = append(c.Branches, br)
		}
		return c
	} else if m["mode"] != nil && m["mode"] != "single" {
		v.Add("config.mode", "invalid_enum_value", "Mode must be single or multi", m["mode"])
	}
	c.Operator, _ = m["operator"].(string)
	c.Value = m["value"]
	checkConditionOp(v, "config.", c.Operator, m)
	return c
}

func checkConditionOp(v *apierr.Validation, prefix, op string, obj map[string]any) {
	valueless, ok := conditionOps[op]
	if !ok {
		v.Add(prefix+"operator", "invalid_enum_value", "Operator must be one of equals, notEquals, contains, notContains, "+
			"greaterThan, lessThan, greaterThanOrEqual, lessThanOrEqual, exists, notExists", obj["operator"])
		return
	}
	if val, present := obj["value"]; !valueless && (!present || val == nil) {
		v.Add(prefix+"value", "invalid_type", "Operator "+op+" needs a value", "undefined")
	}
}

func checkWebhookConfig(v *apierr.Validation, m map[string]any) WebhookConfig {
	c := WebhookConfig{Method: "POST"}
	c.URL, _ = m["url"].(string)
	u, err := url.Parse(strings.TrimSpace(c.URL))
	if c.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.Add("config.url", "invalid_string", "URL must be an http:// or https:// address", m["url"])
	}
	if mt, present := m["method"]; present && mt != nil {
		s, _ := mt.(string)
		s = strings.ToUpper(s)
		if !strings.Contains("|"+webhookMethodsS+"|", "|"+s+"|") || s == "" {
			v.Add("config.method", "invalid_enum_value", "Method must be one of "+strings.ReplaceAll(webhookMethodsS, "|", ", "), mt)
		}
		c.Method = s
	}
	if h, present := m["headers"]; present && h != nil {
		obj, ok := h.(map[string]any)
		if !ok {
			v.Add("config.headers", "invalid_type", "Headers must be an object of strings", h)
		}
		c.Headers = map[string]string{}
		for k, val := range obj {
			s, ok := val.(string)
			if !ok {
				v.Add("config.headers."+k, "invalid_type", "Header values must be strings", val)
			}
			c.Headers[k] = s
		}
	}
	c.Body = m["body"]
	return c
}

func (en *Service) checkUpdateConfig(v *apierr.Validation, m map[string]any) UpdateConfig {
	c := UpdateConfig{}
	if u, present := m["updates"]; present && u != nil {
		obj, ok := u.(map[string]any)
		if !ok {
			v.Add("config.updates", "invalid_type", "Updates must be an object", u)
		}
		for k := range obj {
			if audience.IsReservedKey(k) {
				v.Add("config.updates."+k, "reserved_key", "\""+k+"\" is a reserved contact field", k)
			}
		}
		c.Updates = obj
	}
	if s, present := m["subscriptionAction"]; present && s != nil {
		c.SubscriptionAction, _ = s.(string)
		switch c.SubscriptionAction {
		case "none", "subscribe", "unsubscribe":
		default:
			v.Add("config.subscriptionAction", "invalid_enum_value", "Subscription action must be none, subscribe or unsubscribe", s)
		}
	}
	if len(c.Updates) == 0 && (c.SubscriptionAction == "" || c.SubscriptionAction == "none") && len(v.Fields) == 0 {
		v.Add("config", "no_op", "The step changes nothing: give updates or a subscriptionAction", nil)
	}
	return c
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
