package dev.kgpu.agent.kubernetes;

import com.oracle.svm.core.annotate.Delete;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.InOutCreateable;
import io.fabric8.kubernetes.client.dsl.MetricAPIGroupDSL;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.internal.core.v1.PodOperationsImpl;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.run.RunOperations;
import io.fabric8.kubernetes.client.impl.BaseClient;

import java.util.function.BooleanSupplier;

/**
 * fabric8's client as the native executables have it: without the kinds no kgpu agent reads. Native-image only;
 * the JVM never loads these classes.
 *
 * <p>fabric8's {@code KubernetesClientImpl} registers its own operations for twelve kinds when a client is built
 * (Pod, Service, ServiceAccount, Job, ReplicationController, and Deployment, ReplicaSet, StatefulSet and
 * CertificateSigningRequest in two API versions each), and the Kubernetes client extension registers all of
 * {@code KubernetesClientImpl}'s methods for reflection, one per kind ({@code services()}, {@code secrets()}, ...).
 * Each names its kind, and a named kind keeps its whole model in the executable: its builders, fluents and every
 * type those name (docs/benchmarks.md, "The Kubernetes kinds the agents register"). Here the client registers the
 * Pod's operations only, the one of the twelve an agent reads (discovery its own pod, the validator its workload
 * pods), and the methods marked {@code @Delete} below are gone: native-image leaves a deleted method out of the
 * reflection registrations, and fails the build, naming the method, if code calls it. An agent that needs one of
 * them removes its declaration here. {@code NativeKubernetesClientTest} checks each target against the fabric8 on the class path, so
 * a fabric8 upgrade that renames one fails in the JVM tests rather than in a native build.
 */
final class NativeKubernetesClient {

    static final String TARGET = "io.fabric8.kubernetes.client.impl.KubernetesClientImpl";

    private NativeKubernetesClient() {
    }

    /** Whether the executable has fabric8's client: the exporter has none, and takes no substitution. */
    static final class ClientPresent implements BooleanSupplier {
        @Override
        public boolean getAsBoolean() {
            try {
                Class.forName(TARGET, false, ClientPresent.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException absent) {
                return false;
            }
        }
    }

    @TargetClass(className = TARGET, onlyWith = ClientPresent.class)
    static final class Target_KubernetesClientImpl {

        @Substitute
        protected void registerDefaultHandlers() {
            ((BaseClient) (Object) this).getHandlers().register(Pod.class, PodOperationsImpl::new);
        }

        @Delete
        public native NonNamespaceOperation apiServices();

        @Delete
        public native MixedOperation bindings();

        @Delete
        public native NonNamespaceOperation certificateSigningRequests();

        @Delete
        public native NonNamespaceOperation componentstatuses();

        @Delete
        public native MixedOperation configMaps();

        @Delete
        public native MixedOperation endpoints();

        @Delete
        public native MixedOperation leases();

        @Delete
        public native MixedOperation limitRanges();

        @Delete
        public native NonNamespaceOperation namespaces();

        @Delete
        public native MixedOperation persistentVolumeClaims();

        @Delete
        public native NonNamespaceOperation persistentVolumes();

        @Delete
        public native MixedOperation replicationControllers();

        @Delete
        public native MixedOperation resourceQuotas();

        @Delete
        public native NonNamespaceOperation runtimeClasses();

        @Delete
        public native MixedOperation secrets();

        @Delete
        public native MixedOperation serviceAccounts();

        @Delete
        public native MixedOperation services();

        @Delete
        public native InOutCreateable tokenReviews();

        @Delete
        public native LeaderElectorBuilder leaderElector();

        @Delete
        public native RunOperations run();

        @Delete
        public native MetricAPIGroupDSL top();
    }
}
