package dev.kgpu.discovery.publish;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** NFD's NodeFeature CRD, served or withdrawn in the test API server. */
final class NodeFeatureCrd {

    static final String NAME = "nodefeatures.nfd.k8s-sigs.io";

    private NodeFeatureCrd() {
    }

    static void install(KubernetesClient client) {
        if (client.apiextensions().v1().customResourceDefinitions().withName(NAME).get() != null) {
            return;
        }
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(NAME).endMetadata()
                .withNewSpec()
                .withGroup("nfd.k8s-sigs.io")
                .withScope("Namespaced")
                .withNewNames().withKind("NodeFeature").withListKind("NodeFeatureList").withPlural("nodefeatures").withSingular("nodefeature").endNames()
                .addNewVersion().withName("v1alpha1").withServed(true).withStorage(true)
                .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
                .endVersion()
                .endSpec()
                .build();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }

    static void remove(KubernetesClient client) {
        client.apiextensions().v1().customResourceDefinitions().withName(NAME).delete();
    }
}
