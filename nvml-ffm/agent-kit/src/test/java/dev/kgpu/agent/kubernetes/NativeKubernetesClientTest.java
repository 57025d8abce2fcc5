package dev.kgpu.agent.kubernetes;

import com.oracle.svm.core.annotate.Delete;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import io.fabric8.kubernetes.client.impl.KubernetesClientImpl;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native executables' fabric8 client ({@link NativeKubernetesClient}) against the fabric8 on the class path:
 * each method it replaces or deletes is one of {@code KubernetesClientImpl}'s own, with the same parameters and
 * return type, so a fabric8 upgrade that renames or retypes one fails here, in the JVM tests, and not only in a
 * native build.
 */
class NativeKubernetesClientTest {

    private static final Class<?> SUBSTITUTION = NativeKubernetesClient.Target_KubernetesClientImpl.class;

    @Test
    void theSubstitutionTargetsFabric8sClient() {
        TargetClass target = SUBSTITUTION.getAnnotation(TargetClass.class);

        assertThat(target.className()).isEqualTo(KubernetesClientImpl.class.getName()).isEqualTo(NativeKubernetesClient.TARGET);
        assertThat(new NativeKubernetesClient.ClientPresent().getAsBoolean()).as("fabric8's client is on this class path").isTrue();
    }

    @Test
    void eachReplacedOrDeletedMethodIsOneOfTheClientsOwn() throws NoSuchMethodException {
        List<Method> targets = Arrays.stream(SUBSTITUTION.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(Delete.class) || m.isAnnotationPresent(Substitute.class)).toList();

        assertThat(targets).as("21 methods deleted, registerDefaultHandlers replaced").hasSize(22);
        for (Method method : targets) {
            Method original = KubernetesClientImpl.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
            assertThat(original.getReturnType()).as("%s's return type", method.getName()).isEqualTo(method.getReturnType());
            assertThat(Modifier.isStatic(original.getModifiers())).as("%s is static", method.getName())
                    .isEqualTo(Modifier.isStatic(method.getModifiers()));
        }
    }

    @Test
    void theOnlyReplacementIsTheDefaultHandlersAndEveryOtherTargetIsDeleted() {
        List<String> replaced = Arrays.stream(SUBSTITUTION.getDeclaredMethods()).filter(m -> m.isAnnotationPresent(Substitute.class))
                .map(Method::getName).toList();
        List<String> neither = Arrays.stream(SUBSTITUTION.getDeclaredMethods())
                .filter(m -> !m.isAnnotationPresent(Delete.class) && !m.isAnnotationPresent(Substitute.class))
                .map(Method::getName).filter(name -> !name.startsWith("lambda$")).toList();

        assertThat(replaced).containsExactly("registerDefaultHandlers");
        assertThat(neither).as("methods of the substitution that are neither replaced nor deleted").isEmpty();
    }
}
