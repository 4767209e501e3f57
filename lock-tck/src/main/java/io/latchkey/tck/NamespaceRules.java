package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Namespaces: two applications on one store, each with its own {@code namespace} setting, never see or release each
 * other's locks. The namespaces are chosen so that one is a prefix of the other and the names differ by the same
 * characters ({@code <run>n} + {@code n<x>} against {@code <run>nn} + {@code <x>}): a store that only concatenates
 * namespace and name gives both the same key, and the rule catches it.
 */
public interface NamespaceRules extends TckRules {

    /**
     * Rule namespace: clients in different namespaces hold the same name at once, see only their own grants and cannot
     * release the other's.
     */
    @Test
    @Tag("namespace")
    @DisplayName("namespace: clients in two namespaces hold the same name at once, see and release only their own")
    default void namespace_twoNamespacesNeverMeet() {
        String run = tck().namespaceBase();
        LockClient a = tck().newClientInNamespace(run + "n");
        LockClient b = tck().newClientInNamespace(run + "nn");
        LockClient a2 = tck().newClientInNamespace(run + "n");
        String x = tck().name("x");
        // "<run>n" + "n" + x and "<run>nn" + x are the same text: they must still be two locks
        String nameInA = "n" + x;
        String nameInB = x;

        LockHandle inA = Tck.mustAcquire(a.lock(nameInA));
        LockHandle inB = b.lock(nameInB)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("'" + nameInB + "' in namespace " + run + "nn is busy here: the"
                        + " namespaces share keys ('" + nameInA + "' is held in namespace " + run + "n, and namespace"
                        + " + name is the same text)"));
        LockHandle sameNameInB = b.lock(nameInA)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError("'" + nameInA + "' held in namespace " + run + "n made the same"
                        + " name busy in namespace " + run + "nn"));
        assertTrue(inA.isValid() && inB.isValid() && sameNameInB.isValid(), "a grant in one namespace ended another");

        Optional<LockInfo> seenByB = b.inspect(nameInA);
        assertTrue(seenByB.isPresent(), "inspect in the holder's own namespace did not show its lock");
        assertEquals(
                sameNameInB.owner(),
                seenByB.get().owner(),
                "inspect in one namespace showed the other namespace's holder of the same name");
        assertEquals(inA.owner(), a2.inspect(nameInA).map(LockInfo::owner).orElse(null));
        Tck.mustBeBusy(a2.lock(nameInA), "the same namespace must see its own grant");

        if (tck().capabilities().contains(Capability.LISTING)) {
            List<String> listedByA = a.list("").stream().map(LockInfo::name).toList();
            assertTrue(listedByA.contains(nameInA), "list in a namespace did not show its own lock: " + listedByA);
            assertFalse(
                    listedByA.contains(nameInB),
                    "list in namespace " + run + "n showed a lock of namespace " + run + "nn: " + listedByA);
            assertEquals(
                    1,
                    listedByA.stream().filter(nameInA::equals).count(),
                    "list showed one namespace's lock twice (or the other's under the same name): " + listedByA);
        }

        sameNameInB.release();
        assertTrue(inA.isValid(), "releasing a name in one namespace ended the same name's grant in another");
        assertTrue(a2.inspect(nameInA).isPresent(), "releasing in one namespace freed the other's lock");

        assertFalse(a.forceRelease(nameInB), "a forced release removed a grant of another namespace");
        assertTrue(b.inspect(nameInB).isPresent(), "a forced release in one namespace freed the other's lock");
        assertTrue(inB.isValid(), "a forced release in one namespace ended a grant in another");
        inB.release();
        inA.release();
    }
}
