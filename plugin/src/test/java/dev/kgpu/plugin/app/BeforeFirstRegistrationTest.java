package dev.kgpu.plugin.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kgpu.plugin.deviceplugin.Kubelet;
import dev.kgpu.plugin.deviceplugin.ResourceService;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class BeforeFirstRegistrationTest {

    /** What the wrapped kubelet was asked, in order, with the action's runs among them. */
    private final List<String> calls = new ArrayList<>();

    @Test
    void theActionRunsOnceJustBeforeTheFirstRegistrationAndTheKubeletAnswersAsItWould() throws Exception {
        Kubelet kubelet = new BeforeFirstRegistration(new RecordingKubelet(), () -> calls.add("action"));

        Kubelet.Endpoint endpoint = kubelet.serve(null);
        assertThat(kubelet.registers()).isTrue();
        assertThat(kubelet.register(endpoint)).isEqualTo(new Kubelet.Registration.Accepted());
        kubelet.serve(null);
        kubelet.register(endpoint);  // the kubelet restarted: registered again, without the action
        kubelet.watch(change -> { });
        kubelet.close();

        assertThat(calls).containsExactly("serve", "registers", "action", "register", "serve", "register", "watch", "close");
    }

    @Test
    void withoutARegistrationTheActionNeverRuns() throws Exception {
        Kubelet kubelet = new BeforeFirstRegistration(new RecordingKubelet(), () -> calls.add("action"));

        kubelet.serve(null);
        kubelet.close();

        assertThat(calls).containsExactly("serve", "close");
    }

    private final class RecordingKubelet implements Kubelet {
        @Override
        public Endpoint serve(ResourceService service) {
            calls.add("serve");
            return new Endpoint() {
                @Override
                public String resourceName() {
                    return "nvidia.com/gpu";
                }

                @Override
                public String socketName() {
                    return "nvidia-gpu.sock";
                }

                @Override
                public boolean serving() {
                    return true;
                }

                @Override
                public void stop() {
                }
            };
        }

        @Override
        public boolean registers() {
            calls.add("registers");
            return true;
        }

        @Override
        public Registration register(Endpoint endpoint) {
            calls.add("register");
            return new Registration.Accepted();
        }

        @Override
        public void watch(Consumer<Change> changes) {
            calls.add("watch");
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }
}
