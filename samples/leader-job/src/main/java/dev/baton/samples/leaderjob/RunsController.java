package dev.baton.samples.leaderjob;

import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /runs}: the last ten report rows, whichever copy wrote them. */
@RestController
public class RunsController {

    private final JdbcTemplate jdbc;

    public RunsController(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping("/runs")
    public List<Map<String, Object>> runs() {
        // Quoted aliases: H2 would upper-case the column names, PostgreSQL lower-case them.
        return jdbc.queryForList("SELECT node AS \"node\", term AS \"term\", ran_at AS \"ranAt\" FROM job_runs "
                + "ORDER BY id DESC LIMIT 10");
    }
}
