//! Nested fields of an object's tree, read key by key without allocating (a JSON Pointer
//! would be copied segment by segment to unescape it, which shows on the admission path).

use crate::tree::Node;

/// The value at `keys` below `value`, if every step is an object that has the key.
pub(crate) fn at<'n, 'a>(value: &'n Node<'a>, keys: &[&str]) -> Option<&'n Node<'a>> {
    keys.iter().try_fold(value, |v, key| v.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
        let tree = Node::from(&object);
        for (keys, want) in table {
            assert_eq!(at(&tree, keys).map(Node::to_value), want, "{keys:?}");
        }
    }
}
