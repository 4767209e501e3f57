package io.latchkey.tck.selftest;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.tck.TckReport;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The TCK report as a backend author gets it: a JUnit Platform launcher runs a TCK class (here a flawed subject whose
 * leases never expire) and the listener that lock-tck registers through META-INF/services writes the JUnit XML and
 * the Markdown page, with a failure, a skip with its reason, a pass and a measured figure.
 */
@DisplayName("TCK self test: the TCK report (JUnit XML and one page of Markdown) says what failed, why and what ran")
@Tag("self-test")
class TckReportSelfTest {
    private static final String FAILS = "lease_crashedHoldersGrantFreesWithinLeasePlusSlack";
    private static final String PASSES = "history_manyNamesNeverOverlapAndLoseNoUpdate";
    private static final String SKIPS = "network_minorityOfNodesCutOffKeepsTheQuorumWorking";

    @Test
    @DisplayName("a launcher run of a TCK class leaves TEST-<class>.xml and <class>.md in the configured directory")
    void reportNamesTheFailureTheSkipAndTheFigures(@TempDir Path dir) throws Exception {
        Class<?> subject = FlawedSubjects.LeaseNeverExpires.class;
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(
                        org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(subject, FAILS),
                        org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(subject, PASSES),
                        org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(subject, SKIPS))
                .configurationParameter(FlawedSubjects.ENABLED_PARAMETER, "true")
                .configurationParameter(TckReport.DIRECTORY_PARAMETER, dir.toString())
                .build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, summary); // TckReport comes from META-INF/services
        assertThat(summary.getSummary().getTestsFailedCount()).isEqualTo(1);

        Path md = dir.resolve(subject.getName() + ".md");
        Path xml = dir.resolve("TEST-" + subject.getName() + ".xml");
        assertThat(md).exists();
        assertThat(xml).exists();

        String page = Files.readString(md);
        assertThat(page)
                .contains("**FAILED**: 1 passed, 1 failed, 1 skipped of 3 rules")
                .contains("`flawed-mem:LEASE_NEVER_EXPIRES`")
                .contains("- `" + FAILS + "` (lease): the crashed holder's grant")
                .contains("## Skipped, by reason")
                .contains("newBackendThrough")
                .contains("## Figures measured")
                .contains("history on flawed-mem:LEASE_NEVER_EXPIRES")
                .contains("| lease | 0 | 1 | 0 |")
                .contains("| history | 1 | 0 | 0 |");
        assertThat(page.lines().count()).as("one page").isLessThan(60);

        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
        Element suite = doc.getDocumentElement();
        assertThat(suite.getAttribute("tests")).isEqualTo("3");
        assertThat(suite.getAttribute("failures")).isEqualTo("1");
        assertThat(suite.getAttribute("skipped")).isEqualTo("1");
        assertThat(doc.getElementsByTagName("failure").item(0).getTextContent()).contains("LockBackend.tryAcquire kept answering busy");
        assertThat(doc.getElementsByTagName("system-out").item(0).getTextContent()).contains("FIGURE history on");
    }

    /** A TCK class whose server never starts: it runs no rule, and its report must say why. */
    @org.junit.jupiter.api.extension.ExtendWith(FlawedSubjects.OnlyInsideSelfTest.class)
    static final class ServerNeverStarts extends io.latchkey.tck.LockBackendTck {
        @org.junit.jupiter.api.BeforeAll
        static void startServer() {
            throw new IllegalStateException("the store under test did not start: port 1 refused");
        }

        @Override
        protected io.latchkey.spi.LockBackend newBackend() {
            throw new AssertionError("never reached");
        }
    }

    @Test
    @DisplayName("a TCK class that fails before any rule still gets a report that says why")
    void classThatFailsToStartIsReported(@TempDir Path dir) throws Exception {
        Class<?> subject = ServerNeverStarts.class;
        LauncherFactory.create()
                .execute(LauncherDiscoveryRequestBuilder.request()
                        .selectors(org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(
                                subject, "exclusion_secondClientCannotAcquireHeldLock"))
                        .configurationParameter(FlawedSubjects.ENABLED_PARAMETER, "true")
                        .configurationParameter(TckReport.DIRECTORY_PARAMETER, dir.toString())
                        .build());
        assertThat(Files.readString(dir.resolve(subject.getName() + ".md")))
                .contains("**FAILED**: 0 passed, 0 failed, 0 skipped of 0 rules")
                .contains("set-up or tear-down")
                .contains("the store under test did not start: port 1 refused");
        Document doc = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(dir.resolve("TEST-" + subject.getName() + ".xml").toFile());
        assertThat(doc.getDocumentElement().getAttribute("tests")).isEqualTo("1");
        assertThat(doc.getDocumentElement().getAttribute("errors")).isEqualTo("1");
    }

    @Test
    @DisplayName("\"off\" writes nothing")
    void offWritesNothing() throws Exception {
        Path wouldBe = Path.of(TckReport.DEFAULT_DIRECTORY, FlawedSubjects.NoFlaw.class.getName() + ".md");
        Files.deleteIfExists(wouldBe);
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(
                        FlawedSubjects.NoFlaw.class, "exclusion_secondClientCannotAcquireHeldLock"))
                .configurationParameter(FlawedSubjects.ENABLED_PARAMETER, "true")
                .configurationParameter(TckReport.DIRECTORY_PARAMETER, "off")
                .build();
        LauncherFactory.create().execute(request);
        assertThat(wouldBe).doesNotExist();
    }
}
