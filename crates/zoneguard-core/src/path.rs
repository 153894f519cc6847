//! Nested fields of a JSON object, read without allocating (`Value::pointer` copies every
//! segment of its path to unescape it, which shows on the admission path).

use serde_json::Value;

/// The value at `keys` below `value`, if every step is an object that has the key.
pub(crate) fn at<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(value, |v, key| v.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_path_reads_nested_object_fields_only() {
        let object = json!({"metadata": {"annotations": {"a/b": "x"}, "name": "web"}, "spec": [1]});
        let table: [(&[&str], Option<Value>); 5] = [
            (&["metadata", "name"], Some(json!("web"))),
            (&["metadata", "annotations", "a/b"], Some(json!("x"))),
            (&["metadata", "missing"], None),
            (&["spec", "0"], None),
            (&[], Some(object.clone())),
        ];
        for (keys, want) in table {
            assert_eq!(at(&object, keys), want.as_ref(), "{keys:?}");
        }
    }
}
