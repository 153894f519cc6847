//! The Ingress API versions the API server no longer serves: `zoneguard check` still checks an
//! Ingress written in one, and warns that `kubectl apply` would refuse it as written.

/// The Ingress `apiVersion`s Kubernetes 1.22 stopped serving.
const REMOVED_IN_1_22: [&str; 2] = ["networking.k8s.io/v1beta1", "extensions/v1beta1"];

/// The warning for an Ingress of `api_version`, when the API server no longer serves it.
pub fn removed_version_warning(api_version: &str) -> Option<String> {
    REMOVED_IN_1_22.contains(&api_version).then(|| {
        format!("apiVersion {api_version} is no longer served for Ingress since Kubernetes 1.22, so kubectl apply refuses this object (zoneguard checked it as written); write apiVersion: networking.k8s.io/v1, in which spec.backend becomes spec.defaultBackend, a backend's serviceName and servicePort become service.name and service.port.number (service.port.name for a named port), and each path needs a pathType")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ingress_versions_removed_in_1_22_get_the_warning() {
        let table = [
            ("networking.k8s.io/v1beta1", true),
            ("extensions/v1beta1", true),
            ("networking.k8s.io/v1", false),
            ("extensions/v1", false),
            ("", false),
        ];
        for (api_version, warned) in table {
            let warning = removed_version_warning(api_version);
            assert_eq!(warning.is_some(), warned, "{api_version}");
            if let Some(warning) = warning {
                let problem = format!("apiVersion {api_version} is no longer served for Ingress since Kubernetes 1.22, so kubectl apply refuses this object");
                assert!(warning.starts_with(&problem), "{warning}");
                assert!(
                    warning.contains("; write apiVersion: networking.k8s.io/v1, in which spec.backend becomes spec.defaultBackend"),
                    "{warning}"
                );
                assert!(!warning.ends_with('.'), "{warning}");
            }
        }
    }
}
