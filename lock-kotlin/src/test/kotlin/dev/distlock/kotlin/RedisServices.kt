package dev.distlock.kotlin

import dev.distlock.redis.RedisLockService
import dev.distlock.redis.RedisLockServiceBuilder
import dev.distlock.test.RedisNode
import java.time.Duration
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import org.springframework.data.redis.core.StringRedisTemplate

/** Lock services of one test Redis, each on a client of its own as two applications would have; closes them all. */
class RedisServices(private val redis: RedisNode) : AutoCloseable {

    private val resources = mutableListOf<AutoCloseable>()

    fun service(settings: (RedisLockServiceBuilder) -> RedisLockServiceBuilder = { it }): RedisLockService {
        val factory = LettuceConnectionFactory(RedisStandaloneConfiguration(redis.host(), redis.port()))
        factory.afterPropertiesSet()
        factory.start()
        resources += AutoCloseable { factory.destroy() }
        // test servers are fresh processes: no restart grace
        val service = settings(RedisLockService.builder(StringRedisTemplate(factory)).restartGrace(Duration.ZERO))
            .build()
        resources += service
        return service
    }

    /** Whether anybody holds the exclusive lock of the key, as Redis sees it. */
    fun held(key: String): Boolean = redis.lockField("distlock:{$key}:lock", "owner") != null

    override fun close() {
        resources.asReversed().forEach { it.close() }
        resources.clear()
    }
}
