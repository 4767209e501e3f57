package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Fairness;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** §4.7 Idempotent retries: a request retried with the same owner id recognises its own grant. */
public interface IdempotencyRules extends TckRules {

    /** Rule §4.7 idempotency: a retried acquire with the same owner gets the same grant, not a second one. */
    @Test
    @Tag("idempotency")
    @DisplayName("§4.7 idempotency: a retried acquire with the same owner gets the same grant, not a second one")
    default void idempotency_retryWithSameOwnerRecognisesItsGrant() {
        LockBackend first = tck().newBackend();
        LockBackend retry = tck().newBackend();
        LockBackend other = tck().newBackend();
        String name = tck().name("retry");
        AcquireRequest request =
                new AcquireRequest(name, "tck-owner-retry", Duration.ofSeconds(30), Fairness.PREFERRED);
        AcquireResult r1 = first.tryAcquire(request);
        assertInstanceOf(Grant.class, r1, "the first attempt on a free lock was not granted");
        AcquireResult r2 = retry.tryAcquire(request);
        assertInstanceOf(
                Grant.class, r2, "a retry with the same owner id was refused: a lost reply would leak the grant");
        assertEquals(((Grant) r1).fencingToken(), ((Grant) r2).fencingToken(), "the retry made a second grant");
        AcquireResult r3 = other.tryAcquire(
                new AcquireRequest(name, "tck-owner-other", Duration.ofSeconds(30), Fairness.PREFERRED));
        assertFalse(r3 instanceof Grant, "another owner acquired a held lock");
        assertTrue(retry.release((Grant) r2), "the retried grant could not be released");
        assertInstanceOf(
                Grant.class,
                other.tryAcquire(
                        new AcquireRequest(name, "tck-owner-other", Duration.ofSeconds(30), Fairness.PREFERRED)));
    }

    /**
     * Rule §4.7 idempotency: a retry through the wait inside the store (LockBackend.acquire) recognises the owner's
     * grant as tryAcquire does.
     *
     * @throws InterruptedException if the test thread is interrupted
     */
    @Test
    @Tag("idempotency")
    @DisplayName("§4.7 idempotency: a retry through the store's wait (acquire) recognises its grant as tryAcquire does")
    default void idempotency_retryThroughTheStoreWaitRecognisesItsGrant() throws InterruptedException {
        LockBackend first = tck().newBackend();
        LockBackend retry = tck().newBackend();
        String name = tck().name("retry-wait");
        Duration wait = tck().settings().wakeUp();
        AcquireRequest request = new AcquireRequest(name, "tck-owner-wait", Duration.ofSeconds(30), Fairness.PREFERRED);
        AcquireResult r1 = first.acquire(request, wait);
        assertInstanceOf(Grant.class, r1, "LockBackend.acquire on a free lock did not grant it");
        long start = System.nanoTime();
        AcquireResult r2 = retry.acquire(request, wait);
        long took = System.nanoTime() - start;
        assertInstanceOf(
                Grant.class,
                r2,
                () -> "LockBackend.acquire (the wait inside the store) answered a retry with the same owner id " + r2
                        + " after " + Tck.millis(took) + " ms: it must recognise the owner's grant, as tryAcquire"
                        + " does, or a lost reply leaks the grant");
        assertEquals(
                ((Grant) r1).fencingToken(),
                ((Grant) r2).fencingToken(),
                "LockBackend.acquire made a second grant for a retry with the same owner id");
        assertTrue(retry.release((Grant) r2), "the retried grant could not be released");
    }
}
