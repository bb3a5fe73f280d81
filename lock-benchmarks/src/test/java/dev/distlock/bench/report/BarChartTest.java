package dev.distlock.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class BarChartTest {

    private static final List<BarChart.Bar> BARS = List.of(new BarChart.Bar("distlock", 30_000, 28_000, 31_000),
            new BarChart.Bar("redisson <async> & co", 12_000, 11_000, 15_000));

    @Test
    void drawsOneBarAndOneWhiskerPerImplementationAndPanelAsWellFormedSvg() throws Exception {
        Document svg = parse(BarChart.svg("Scenario 7: \"one thread\"", List.of(
                new BarChart.Panel("cycles/s", "higher is better", BARS),
                new BarChart.Panel("Redis CPU µs/cycle", "lower is better", List.of(
                        new BarChart.Bar("distlock", 20, 19, 22), new BarChart.Bar("redisson", 45, 40, 50))))));

        Element root = svg.getDocumentElement();
        assertThat(root.getTagName()).isEqualTo("svg");
        assertThat(root.getAttribute("xmlns")).isEqualTo("http://www.w3.org/2000/svg");
        assertThat(byClass(svg, "rect", "bar")).hasSize(4);
        assertThat(byClass(svg, "path", "whisker")).hasSize(4);
        assertThat(byClass(svg, "g", "panel")).hasSize(2);
        assertThat(texts(svg)).contains("Scenario 7: \"one thread\"", "redisson <async> & co", "cycles/s",
                "30,000", "45.0");
    }

    @Test
    void barsAreToScaleAndEachWhiskerSpansItsIterationsAroundTheMedian() throws Exception {
        Document svg = parse(BarChart.svg("t", List.of(new BarChart.Panel("cycles/s", "", BARS))));
        List<Element> bars = byClass(svg, "rect", "bar");
        double first = Double.parseDouble(bars.get(0).getAttribute("width"));
        double second = Double.parseDouble(bars.get(1).getAttribute("width"));
        assertThat(first / second).isCloseTo(30_000.0 / 12_000, org.assertj.core.data.Offset.offset(0.01));

        double left = Double.parseDouble(bars.get(0).getAttribute("x"));
        for (int i = 0; i < bars.size(); i++) {
            double end = left + Double.parseDouble(bars.get(i).getAttribute("width"));
            double[] whisker = horizontalSpan(byClass(svg, "path", "whisker").get(i).getAttribute("d"));
            assertThat(whisker[0]).as("whisker %d starts at the smallest iteration", i).isLessThan(end);
            assertThat(whisker[1]).as("whisker %d ends at the largest iteration", i).isGreaterThan(end);
            double scale = (end - left) / BARS.get(i).median();
            assertThat(whisker[0] - left).isCloseTo(BARS.get(i).min() * scale, org.assertj.core.data.Offset.offset(0.2));
            assertThat(whisker[1] - left).isCloseTo(BARS.get(i).max() * scale, org.assertj.core.data.Offset.offset(0.2));
        }
    }

    @Test
    void aMissingFigureSaysNotAvailableInsteadOfDrawingZero() throws Exception {
        Document svg = parse(BarChart.svg("t", List.of(new BarChart.Panel("Redis CPU", "", List.of(
                new BarChart.Bar("distlock", 10, Double.NaN, Double.NaN),
                new BarChart.Bar("raw-floor", Double.NaN, Double.NaN, Double.NaN))))));
        assertThat(byClass(svg, "rect", "bar")).hasSize(1);
        assertThat(byClass(svg, "path", "whisker")).isEmpty();
        assertThat(texts(svg)).contains("n/a");
    }

    @Test
    void aSingleFigureWithoutIterationsHasNoRangeInItsTooltip() throws Exception {
        Document svg = parse(BarChart.svg("t", List.of(new BarChart.Panel("Redis memory, bytes", "", List.of(
                new BarChart.Bar("distlock, semaphore", 826, Double.NaN, Double.NaN))))));
        assertThat(texts(svg)).contains("distlock, semaphore: 826").noneMatch(text -> text.contains("n/a"));
    }

    @Test
    void refusesAChartWithNothingToDraw() {
        assertThatIllegalArgumentException().isThrownBy(() -> BarChart.svg("t", List.of()));
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BarChart.svg("t", List.of(new BarChart.Panel("cycles/s", "", List.of()))));
    }

    @Test
    void gridStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(BarChart.niceStep(7_500)).isEqualTo(10_000);
        assertThat(BarChart.niceStep(1_600)).isEqualTo(2_000);
        assertThat(BarChart.niceStep(3.1)).isEqualTo(5);
        assertThat(BarChart.niceStep(0)).isEqualTo(1);
    }

    /** The x range of a whisker path "M x y V y M x y H x M x y V y": from its first to its last x. */
    private static double[] horizontalSpan(String path) {
        String[] parts = path.replaceAll("[MVH]", " ").trim().split("\\s+");
        return new double[] { Double.parseDouble(parts[0]), Double.parseDouble(parts[parts.length - 3]) };
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> byClass(Document svg, String tag, String cssClass) {
        NodeList nodes = svg.getElementsByTagName(tag);
        List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element element = (Element) nodes.item(i);
            if (cssClass.equals(element.getAttribute("class"))) {
                found.add(element);
            }
        }
        return found;
    }

    private static List<String> texts(Document svg) {
        List<String> texts = new ArrayList<>();
        for (String tag : List.of("text", "title")) {
            NodeList nodes = svg.getElementsByTagName(tag);
            for (int i = 0; i < nodes.getLength(); i++) {
                texts.add(nodes.item(i).getTextContent());
            }
        }
        return texts;
    }
}
