package dev.distlock.kotlin.build

import java.io.File
import javax.xml.parsers.DocumentBuilderFactory
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.w3c.dom.Element

/**
 * What an application gets by depending on this module, as its published POM says (lock-kotlin/pom.xml, read from
 * each module that runs these tests): everything the starter needs to lock suspend functions, kotlin-reflect included,
 * which the starter asks for at startup.
 */
class PublishedDependenciesTest {

    @Test
    fun kotlinReflectComesWithTheModule() {
        val pom = File("../lock-kotlin/pom.xml")
        val dependencies = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom)
            .documentElement.getElementsByTagName("dependencies").item(0) as Element
        val byArtifact = (0 until dependencies.childNodes.length).map { dependencies.childNodes.item(it) }
            .filterIsInstance<Element>()
            .associateBy { it.text("artifactId") }
        for (artifact in listOf("kotlin-reflect", "kotlinx-coroutines-reactor")) {
            val dependency = byArtifact[artifact]
            assertThat(dependency).`as`(artifact).isNotNull()
            assertThat(dependency!!.text("scope")).`as`("$artifact's scope").isIn(null, "compile", "runtime")
            assertThat(dependency.text("optional")).`as`("$artifact optional").isIn(null, "false")
        }
    }

    private fun Element.text(tag: String): String? =
        getElementsByTagName(tag).let { if (it.length == 0) null else it.item(0).textContent.trim() }
}
