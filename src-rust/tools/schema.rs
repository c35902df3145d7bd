//! JSON Schemas for tools/list, generated from each tool's parameter type
//! and trimmed to what a model needs (every assistant pays for these tokens).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

pub fn for_params<P: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<P>();
    let mut value = schema.to_value();
    trim(&mut value);
    if let Value::Object(map) = &mut value {
        // The parameter struct's own doc comment is for readers of the code.
        map.remove("description");
        map.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
        map.insert("type".into(), "object".into());
    }
    describe_common(&mut value);
    value
}

/// What the parameters many tools share mean, said once: a field's own
/// doc comment says more where it means more.
const COMMON: [(&str, &str); 6] = [
    ("ref", "From a snapshot."),
    ("selector", "CSS, instead of ref."),
    ("timeout", "ms."),
    ("ms", "Milliseconds."),
    ("context", "A context's name (default: the session's)."),
    ("index", "From tab_list."),
];

fn describe_common(schema: &mut Value) {
    let Some(properties) = schema["properties"].as_object_mut() else {
        return;
    };
    for (name, description) in COMMON {
        if let Some(Value::Object(property)) = properties.get_mut(name) {
            property
                .entry("description")
                .or_insert_with(|| description.into());
        }
    }
}

/// Drops keys that cost tokens and say nothing to a model.
fn trim(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["$schema", "title", "format", "additionalProperties"] {
                map.remove(key);
            }
            collapse_nullable(map);
            // `Option<T>` with serde's default says "default": null, which
            // is not a T; absent means "not given", and a real default is
            // declared on the field (`schemars(extend("default" = ...))`).
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            // A field may blank a description its type's doc comment gave.
            if map.get("description") == Some(&Value::from("")) {
                map.remove("description");
            }
            // Integers: "minimum": 0 from unsigned types is noise too.
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            for (key, v) in map.iter_mut() {
                if key == "properties" {
                    // Parameter names (a parameter may be called "title"): trim
                    // each parameter's schema, never the names themselves.
                    if let Value::Object(params) = v {
                        params.values_mut().for_each(trim);
                    }
                } else {
                    trim(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(trim),
        _ => {}
    }
}

/// `Option<T>` comes out as "type": [T, "null"] or anyOf [T, null]:
/// absent already means "not given", so keep T alone.
fn collapse_nullable(map: &mut serde_json::Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get("type") {
        let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if rest.len() == 1 {
            map.insert("type".into(), rest[0].clone());
        }
    }
    if let Some(Value::Array(options)) = map.get("anyOf") {
        let rest: Vec<Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&Value::from("null")))
            .cloned()
            .collect();
        if rest.len() == 1 {
            if let Value::Object(inner) = rest[0].clone() {
                map.remove("anyOf");
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        let rest: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        map.insert("enum".into(), Value::Array(rest));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Example {
        /// The URL to open.
        url: String,
        /// Milliseconds.
        #[serde(default)]
        timeout: Option<u64>,
        #[serde(default)]
        #[schemars(extend("default" = 3))]
        tries: Option<u32>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Titled {
        /// A parameter that happens to be called title.
        title: String,
    }

    #[test]
    fn a_parameter_named_title_is_kept() {
        // Regression: trimming the "title" annotation once removed this parameter.
        let s = for_params::<Titled>();
        assert_eq!(s["properties"]["title"]["type"], "string");
        assert_eq!(s["required"], serde_json::json!(["title"]));
    }

    #[test]
    fn schemas_are_plain_objects() {
        let s = for_params::<Example>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["url"]["type"], "string");
        assert_eq!(s["properties"]["url"]["description"], "The URL to open.");
        assert_eq!(s["properties"]["timeout"]["type"], "integer");
        assert!(s["properties"]["timeout"].get("format").is_none());
        assert_eq!(s["required"], serde_json::json!(["url"]));
        assert!(s.get("title").is_none());
    }

    #[test]
    fn an_optional_parameter_has_no_null_default_only_a_declared_one() {
        let s = for_params::<Example>();
        assert!(s["properties"]["timeout"].get("default").is_none(), "{s}");
        assert_eq!(s["properties"]["tries"]["default"], 3);
        assert_eq!(s["properties"]["tries"]["type"], "integer");
        assert!(
            s.get("description").is_none(),
            "the struct's doc comment stays in the code"
        );
    }
}
